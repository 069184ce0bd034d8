import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { JsonRpcProvider } from "ethers";
import { deployRecorder } from "@relay/testing";

export interface DemoContract {
  name: string;
  address: string;
  /** A call of it the banner prints: a named tuple with an array, as sendTransaction takes them. */
  exampleCall: (owner: string) => { functionSignature: string; args: Record<string, unknown> };
}

const NAME = "Recorder";

/**
 * A contract to send calls to on the local chain: Recorder (the contract the tests call, compiled
 * with solc-js), deployed once and found again on later starts (anvil keeps its state in .dev/);
 * deployed again when the chain no longer has it (.dev/anvil-state.json removed).
 */
export async function demoContract(rpcUrl: string, file: string, chainId: bigint): Promise<DemoContract> {
  const known = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { chainId?: string; address?: string }) : {};
  let address = known.chainId === chainId.toString() ? known.address : undefined;
  if (address) {
    const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
    try {
      if ((await provider.getCode(address)) === "0x") address = undefined;
    } finally {
      provider.destroy();
    }
  }
  if (!address) {
    const deployed = await deployRecorder(rpcUrl);
    deployed.provider.destroy();
    address = deployed.address;
    writeFileSync(file, `${JSON.stringify({ chainId: chainId.toString(), address, name: NAME })}\n`);
  }
  return {
    name: NAME,
    address,
    exampleCall: (owner) => ({
      functionSignature: "function setOrder((uint256 id, address owner, uint8[] flags) order)",
      args: { order: { id: "1", owner, flags: [1, 2, 3] } },
    }),
  };
}
