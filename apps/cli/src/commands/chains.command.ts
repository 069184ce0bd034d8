import type { Command } from "commander";
import { Network } from "ethers";
import { AppError } from "@relay/core";
import type { ChainRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatTable } from "../output";
import { describeRpcUrl, fetchChainId } from "../rpc-probe";
import { collect, parseBigIntArg, parseIntArg, withJson, type JsonOption } from "./options";

interface AddOptions extends JsonOption {
  chainId: bigint;
  rpcUrl: string[];
  name?: string;
  confirmations?: number;
  lowBalanceThreshold?: bigint;
  maxFeeCap?: bigint;
  maxPriorityFeeCap?: bigint;
  stuckAfter?: number;
  blockTimeMs?: number;
  verify: boolean;
}

const view = (c: ChainRecord) => ({
  chainId: c.chainId,
  name: c.name,
  rpcUrls: c.rpcUrls,
  confirmations: c.confirmations,
  lowBalanceThresholdWei: c.lowBalanceThresholdWei,
  maxFeePerGasCapWei: c.maxFeePerGasCapWei,
  maxPriorityFeePerGasCapWei: c.maxPriorityFeePerGasCapWei,
  stuckAfterSeconds: c.stuckAfterSeconds,
  blockTimeMs: c.blockTimeMs,
  createdAt: c.createdAt,
});

function checkRpcUrls(urls: string[]): string[] {
  for (const url of urls) {
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw usageError("An --rpc-url is not a valid URL: give the full http(s):// address of the JSON-RPC endpoint");
    }
    if (protocol !== "http:" && protocol !== "https:") {
      throw usageError(`--rpc-url must be an http:// or https:// JSON-RPC endpoint, not ${protocol}//`);
    }
  }
  return [...new Set(urls)];
}

/** Ethers knows the names of the well-known networks; anything else gets a neutral one. */
function defaultName(chainId: bigint): string {
  const known = Network.from(chainId).name;
  return known && known !== "unknown" ? known : `chain-${chainId}`;
}

async function verifyChainId(probe: (url: string) => Promise<bigint>, urls: string[], expected: bigint): Promise<void> {
  const answers = await Promise.all(urls.map(async (url) => ({ url, chainId: await probe(url) })));
  const wrong = answers.find((a) => a.chainId !== expected);
  if (wrong) {
    throw new AppError(
      "BAD_REQUEST",
      `RPC ${describeRpcUrl(wrong.url)} serves chain ${wrong.chainId}, not ${expected}: fix --chain-id or --rpc-url`,
    );
  }
}

export function registerChainCommands(program: Command, deps: CliDeps): void {
  const chains = program.command("chains").description("add and list the chains the relay serves");
  const probe = deps.probeChainId ?? ((url: string) => fetchChainId(url));

  withJson(
    chains
      .command("add")
      .description("add a chain, or update one; running services pick it up without a restart")
      // Requests and events carry the chain id as a JSON number: one past 2^53 - 1 could not be named exactly.
      .requiredOption("--chain-id <n>", "EIP-155 chain id", parseBigIntArg("--chain-id", 1n, BigInt(Number.MAX_SAFE_INTEGER)))
      .requiredOption("--rpc-url <url>", "JSON-RPC endpoint (repeat for fallbacks; replaces the stored list)", collect)
      .option("--name <name>", "display name (default: the well-known name, or chain-<id>)")
      .option("--confirmations <n>", "blocks until a transaction counts as final (default 1)", parseIntArg("--confirmations", 1, 10_000))
      .option("--low-balance-threshold <wei>", "WalletBalanceLow fires below this balance (default 0: never)", parseBigIntArg("--low-balance-threshold", 0n))
      .option("--max-fee-cap <wei>", "most a transaction may pay per gas (maxFeePerGas / gasPrice), bumps included", parseBigIntArg("--max-fee-cap", 1n))
      .option("--max-priority-fee-cap <wei>", "most a transaction may tip per gas", parseBigIntArg("--max-priority-fee-cap", 0n))
      .option("--stuck-after <seconds>", "replace a transaction not mined after this long (default 60)", parseIntArg("--stuck-after", 1, 86_400))
      .option("--block-time-ms <ms>", "how often to look for receipts (default 2000)", parseIntArg("--block-time-ms", 50, 600_000))
      .option("--no-verify", "do not check that every RPC answers eth_chainId with --chain-id"),
  ).action(async (options: AddOptions) => {
    const rpcUrls = checkRpcUrls(options.rpcUrl);
    const name = options.name?.trim();
    if (name !== undefined && (name === "" || name.length > 100)) throw usageError("--name must be 1-100 characters");
    if (options.verify) await verifyChainId(probe, rpcUrls, options.chainId);

    // Options left out keep their stored values, so changing one setting does not reset others.
    const existing = await deps.chains.findById(options.chainId);
    const chain = await deps.chains.upsert({
      chainId: options.chainId,
      name: name ?? existing?.name ?? defaultName(options.chainId),
      rpcUrls,
      confirmations: options.confirmations ?? existing?.confirmations ?? 1,
      lowBalanceThresholdWei: options.lowBalanceThreshold ?? existing?.lowBalanceThresholdWei ?? 0n,
      maxFeePerGasCapWei: options.maxFeeCap,
      maxPriorityFeePerGasCapWei: options.maxPriorityFeeCap,
      stuckAfterSeconds: options.stuckAfter,
      blockTimeMs: options.blockTimeMs,
    });
    emit(deps.output, options.json, { ...view(chain), created: !existing, verified: options.verify }, () =>
      `${existing ? "Updated" : "Added"} chain ${chain.chainId} (${chain.name}) with ${chain.rpcUrls.length} RPC URL(s)` +
      (options.verify ? ", all answering the right chain id" : " (not verified)") +
      // Without a cap a transaction pays whatever the RPC says the market is: one wrong answer
      // (a broken or hostile endpoint) prices every send of the chain.
      (chain.maxFeePerGasCapWei === null ? "\nNo fee cap: fees follow what the RPC reports, however high; set --max-fee-cap in production" : ""),
    );
  });

  withJson(chains.command("list").description("list chains")).action(async (options: JsonOption) => {
    const rows = await deps.chains.list();
    emit(deps.output, options.json, rows.map(view), () =>
      formatTable(
        rows,
        [
          { header: "CHAIN ID", value: (c) => c.chainId.toString() },
          { header: "NAME", value: (c) => c.name },
          { header: "CONFIRMATIONS", value: (c) => String(c.confirmations) },
          { header: "LOW BALANCE (WEI)", value: (c) => c.lowBalanceThresholdWei.toString() },
          { header: "RPC URLS", value: (c) => c.rpcUrls.map(describeRpcUrl).join(", ") },
        ],
        "No chains yet: add one with `npm run relay -- chains add --chain-id <n> --rpc-url <url>`",
      ),
    );
  });
}
