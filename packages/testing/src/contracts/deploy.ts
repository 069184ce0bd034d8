import { Contract, ContractFactory, JsonRpcProvider, Wallet, type JsonFragment } from "ethers";
import { ANVIL_FUNDED_KEY, startAnvil, type AnvilInstance, type AnvilOptions } from "../anvil";
import { compileContract, type CompiledContract } from "./compile";

/**
 * Storage slot of Recorder's `trapArmed`. Writing 1 there with `anvil_setStorageAt` arms the trap
 * without a transaction (see revertsWhenMined in Recorder.sol); the integration test checks it.
 */
export const RECORDER_TRAP_SLOT = "0x0";

export interface DeployedRecorder {
  address: string;
  /** Connected to `provider` for reads; `contract.connect(wallet)` to send. */
  contract: Contract;
  abi: JsonFragment[];
  /** Fresh reads (no response cache); the caller destroys it when done. */
  provider: JsonRpcProvider;
}

/** Recorder.sol compiled (or read from the compile cache), for tests that need only the ABI. */
export function recorderArtifact(): CompiledContract {
  return compileContract("Recorder.sol", "Recorder");
}

/**
 * Deploys Recorder from `privateKey`'s account and waits for it to be mined, so the node must
 * mine on its own (anvil's default automine, or a block time), not run with `noMining`.
 */
export async function deployRecorder(rpcUrl: string, privateKey: string = ANVIL_FUNDED_KEY): Promise<DeployedRecorder> {
  const { abi, bytecode } = recorderArtifact();
  const provider = testProvider(rpcUrl);
  try {
    const deployer = new Wallet(privateKey, provider);
    const deployed = await new ContractFactory(abi, bytecode, deployer).deploy();
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();
    return { address, contract: new Contract(address, abi, provider), abi, provider };
  } catch (error) {
    provider.destroy();
    throw error;
  }
}

/**
 * A provider for tests: no 250 ms response cache (a balance or nonce read right after a send
 * must be fresh), the chain id asked once, and quick polling while waiting for receipts.
 */
function testProvider(rpcUrl: string): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, staticNetwork: true, pollingInterval: 100 });
}

export interface RecorderChain {
  anvil: AnvilInstance;
  recorder: DeployedRecorder;
  /** Destroys the recorder's provider and stops anvil; safe after a failed start. */
  stop(): Promise<void>;
}

/** An anvil node with Recorder deployed on it: the chain most transaction tests send to. */
export async function startRecorderChain(options: AnvilOptions): Promise<RecorderChain> {
  const anvil = await startAnvil(options);
  try {
    const recorder = await deployRecorder(anvil.rpcUrl);
    return {
      anvil,
      recorder,
      stop: async () => {
        recorder.provider.destroy();
        await anvil.stop();
      },
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Recorder.setOrder with an order of `id`: the call most transaction tests send. */
export const setOrderCall = (id: number, owner: string, flags: number[] = []) => ({
  functionSignature: "setOrder((uint256 id, address owner, uint8[] flags) order)",
  args: { order: { id, owner, flags } },
});

