import type { Command } from "commander";
import { getAddress, isAddress } from "ethers";
import { AppError } from "@relay/core";
import type { ProjectFundingRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatTable } from "../output";
import { resolveProject } from "../project-ref";
import { parseBigIntArg, withJson, type JsonOption } from "./options";

interface ChainOptions extends JsonOption {
  project: string;
  chain: bigint;
}

interface SetOptions extends ChainOptions {
  wallet: string;
  targetWei: bigint;
}

const view = (f: ProjectFundingRecord) => ({
  projectId: f.projectId,
  chainId: f.chainId,
  fundingWallet: f.fundingAddress,
  targetBalanceWei: f.targetBalanceWei,
  updatedAt: f.updatedAt,
});

function parseAddress(value: string): string {
  if (!isAddress(value)) throw usageError(`--wallet must be a 0x address of 40 hex digits, not "${value}"`);
  return getAddress(value.toLowerCase());
}

/** Managed gas (docs/funding.md): a funding wallet and a target balance per project and chain. */
export function registerFundingCommands(program: Command, deps: CliDeps): void {
  const funding = program.command("funding").description("managed gas: top up a project's wallets from a funding wallet");

  withJson(
    funding
      .command("set")
      .description("top up the project's wallets on a chain from a funding wallet, to a target balance, whenever one is below the chain's low-balance threshold")
      .requiredOption("--project <id-or-name>", "project whose wallets are topped up")
      .requiredOption("--chain <id>", "chain id (a chain added with `chains add`)", parseBigIntArg("--chain", 1n))
      .requiredOption("--wallet <address>", "funding wallet: a wallet of another project (an operator's), created with `wallets create`")
      .requiredOption("--target-wei <n>", "balance a top-up brings a wallet to, in wei; above the chain's low-balance threshold", parseBigIntArg("--target-wei", 1n)),
  ).action(async (options: SetOptions) => {
    const project = await resolveProject(deps.projects, options.project);
    const chain = await deps.chains.findById(options.chain);
    if (!chain) throw new AppError("NOT_FOUND", `Chain ${options.chain} is not configured: add it with \`npm run relay -- chains add --chain-id ${options.chain} --rpc-url <url>\``);
    const address = parseAddress(options.wallet);
    const wallet = await deps.wallets.findByAddress(address);
    if (!wallet) throw new AppError("NOT_FOUND", `No wallet ${address} in the relay: create one for an operator project with \`npm run relay -- wallets create --project <operator-project>\``);
    if (wallet.projectId === project.id) {
      throw usageError(`Wallet ${address} belongs to project ${project.name} itself: the funding wallet must be another project's (an operator's), or the project's calls could spend it`);
    }
    if (options.targetWei <= chain.lowBalanceThresholdWei) {
      throw usageError(
        `--target-wei ${options.targetWei} is not above chain ${chain.chainId}'s low-balance threshold (${chain.lowBalanceThresholdWei} wei): a topped-up wallet would still be low; raise it, or the threshold with \`chains add\``,
      );
    }
    const saved = await deps.fundings.set({ projectId: project.id, chainId: chain.chainId, fundingAddress: address, targetBalanceWei: options.targetWei });
    emit(deps.output, options.json, view(saved), () =>
      `Managed gas for project ${project.name} on chain ${chain.chainId}: a wallet below ${chain.lowBalanceThresholdWei} wei is topped up to ${saved.targetBalanceWei} wei from ${address}; keep that wallet funded`,
    );
  });

  withJson(
    funding
      .command("list")
      .description("list managed gas settings, of every project or of one")
      .option("--project <id-or-name>", "only this project's"),
  ).action(async (options: JsonOption & { project?: string }) => {
    const project = options.project === undefined ? undefined : await resolveProject(deps.projects, options.project);
    const rows = await deps.fundings.list(project?.id);
    emit(deps.output, options.json, rows.map(view), () =>
      formatTable(
        rows,
        [
          { header: "PROJECT", value: (f) => f.projectId },
          { header: "CHAIN", value: (f) => f.chainId.toString() },
          { header: "FUNDING WALLET", value: (f) => f.fundingAddress },
          { header: "TARGET (WEI)", value: (f) => f.targetBalanceWei.toString() },
        ],
        "No managed gas: set it with `npm run relay -- funding set --project <p> --chain <id> --wallet <address> --target-wei <n>`",
      ),
    );
  });

  withJson(
    funding
      .command("remove")
      .description("stop topping up the project's wallets on a chain (a top-up already decided still finishes)")
      .requiredOption("--project <id-or-name>", "project")
      .requiredOption("--chain <id>", "chain id", parseBigIntArg("--chain", 1n)),
  ).action(async (options: ChainOptions) => {
    const project = await resolveProject(deps.projects, options.project);
    if (!(await deps.fundings.remove(project.id, options.chain))) {
      throw new AppError("NOT_FOUND", `Project ${project.name} has no managed gas on chain ${options.chain}: see \`npm run relay -- funding list\``);
    }
    emit(deps.output, options.json, { projectId: project.id, chainId: options.chain, removed: true }, () => `Managed gas for project ${project.name} on chain ${options.chain} removed`);
  });
}
