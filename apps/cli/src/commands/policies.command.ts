import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { parsePolicy, type Policy } from "@relay/policies";
import type { AuditDetails, PolicyRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatDate, toJson } from "../output";
import { resolveProject } from "../project-ref";
import { collect, parseBigIntArg, withJson, type JsonOption } from "./options";

interface ProjectOption extends JsonOption {
  project: string;
}

/** A wei limit, or NONE to remove it (commander turns a parser's null into ""). */
const NONE = "none";
const limitArg = (what: string) => (value: string): string => {
  if (value.toLowerCase() === NONE) return NONE;
  if (!/^\d+$/.test(value)) throw usageError(`${what} must be a whole number of wei, or "none" to remove the limit`);
  return BigInt(value).toString();
};

const view = (projectId: string, record: PolicyRecord | null) => ({ projectId, policy: record?.policy ?? null, updatedAt: record?.updatedAt ?? null });

/**
 * Per-project policies (docs/policies.md): what the gateway checks every send of the project
 * against before storing it. `set` replaces the whole document; `allow-contract` and `limits`
 * change one part of it; every write is validated by the same schema the gateway reads it with.
 */
export function registerPolicyCommands(program: Command, deps: CliDeps): void {
  const policies = program.command("policies").description("show and set a project's policy: allowed contracts and functions, value and gas limits");

  /** Validates the changed document and writes it with its audit entry (the one write: policies.set). */
  const write = async (projectId: string, document: unknown, json: boolean | undefined, what: string) => {
    const policy = parsePolicy(document);
    const record = await deps.audit.change(
      (r) => r.policies.set(projectId, policy),
      (written) => ({ action: "policy.changed", projectId, details: { policy: written.policy as AuditDetails } }),
    );
    emit(deps.output, json, view(projectId, record), () => `${what}. Gateways apply it within their auth cache time (AUTH_CACHE_TTL_MS).\n${toJson(record.policy)}`);
  };
  const current = async (projectId: string): Promise<Policy> => {
    const record = await deps.policies.get(projectId);
    return record ? parsePolicy(record.policy) : {};
  };

  withJson(policies.command("show").description("print a project's policy").requiredOption("--project <id-or-name>", "the project")).action(async (options: ProjectOption) => {
    const project = await resolveProject(deps.projects, options.project);
    const record = await deps.policies.get(project.id);
    emit(deps.output, options.json, view(project.id, record), () =>
      record
        ? `Policy of project ${project.name}, set ${formatDate(record.updatedAt)}:\n${toJson(record.policy)}`
        : `Project ${project.name} has no policy: every send is stored as it comes. Set one with \`npm run relay -- policies set --project ${project.name} --file policy.json\``,
    );
  });

  withJson(
    policies
      .command("set")
      .description("replace a project's whole policy with a JSON document (docs/policies.md)")
      .requiredOption("--project <id-or-name>", "the project")
      .requiredOption("--file <path>", "the policy document, JSON"),
  ).action(async (options: ProjectOption & { file: string }) => {
    const project = await resolveProject(deps.projects, options.project);
    let text: string;
    try {
      text = await readFile(options.file, "utf8");
    } catch (e) {
      throw usageError(`cannot read --file ${options.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (e) {
      throw usageError(`--file ${options.file} is not JSON: ${(e as Error).message}`);
    }
    await write(project.id, document, options.json, `Set the policy of project ${project.name}`);
  });

  withJson(
    policies
      .command("allow-contract")
      .description("add a contract (and optionally only some of its functions) to a project's allowlist on a chain")
      .requiredOption("--project <id-or-name>", "the project")
      .requiredOption("--chain <id>", "chain id", parseBigIntArg("--chain", 1n))
      .requiredOption("--address <address>", "the contract")
      .option("--function <signature-or-selector>", "a function it may be called with, e.g. \"transfer(address,uint256)\" or 0xa9059cbb (repeatable; none: any function)", collect),
  ).action(async (options: ProjectOption & { chain: bigint; address: string; function?: string[] }) => {
    const project = await resolveProject(deps.projects, options.project);
    const policy = await current(project.id);
    const chain = options.chain.toString();
    const entries = [...(policy.contracts?.[chain] ?? [])];
    const index = entries.findIndex((e) => e.address.toLowerCase() === options.address.toLowerCase());
    const existing = index === -1 ? undefined : entries[index];
    // Without --function: any function. With: the listed ones added to those already allowed.
    const functions = options.function === undefined || (existing && existing.functions === undefined) ? undefined : [...new Set([...(existing?.functions ?? []), ...options.function])];
    const entry = { address: options.address, ...(functions ? { functions } : {}) };
    if (index === -1) entries.push(entry);
    else entries[index] = entry;
    await write(project.id, { ...policy, contracts: { ...policy.contracts, [chain]: entries } }, options.json, `Allowed ${options.address} on chain ${chain} for project ${project.name}`);
  });

  withJson(
    policies
      .command("limits")
      .description('set or remove a project\'s value and gas limits (wei; "none" removes one)')
      .requiredOption("--project <id-or-name>", "the project")
      .option("--value-per-tx <wei>", "most value one transaction may send", limitArg("--value-per-tx"))
      .option("--value-per-day <wei>", "most value one wallet may send per chain in a rolling 24 hours", limitArg("--value-per-day"))
      .option("--gas-per-day <wei>", "most one wallet may pay in fees per chain in a rolling 24 hours", limitArg("--gas-per-day")),
  ).action(async (options: ProjectOption & { valuePerTx?: string; valuePerDay?: string; gasPerDay?: string }) => {
    if (options.valuePerTx === undefined && options.valuePerDay === undefined && options.gasPerDay === undefined) {
      throw usageError("give at least one of --value-per-tx, --value-per-day, --gas-per-day");
    }
    const project = await resolveProject(deps.projects, options.project);
    const policy: Record<string, unknown> = { ...(await current(project.id)) };
    const change = (field: string, value: string | undefined) => {
      if (value === undefined) return;
      if (value === NONE) delete policy[field];
      else policy[field] = value;
    };
    change("valuePerTransactionWei", options.valuePerTx);
    change("valuePerWalletPerDayWei", options.valuePerDay);
    change("gasPerWalletPerDayWei", options.gasPerDay);
    await write(project.id, policy, options.json, `Changed the limits of project ${project.name}`);
  });

  withJson(policies.command("clear").description("remove a project's policy: no limits").requiredOption("--project <id-or-name>", "the project")).action(async (options: ProjectOption) => {
    const project = await resolveProject(deps.projects, options.project);
    const removed = await deps.audit.change(
      (r) => r.policies.clear(project.id),
      (cleared) => (cleared ? { action: "policy.cleared", projectId: project.id } : null),
    );
    emit(deps.output, options.json, { projectId: project.id, removed }, () => (removed ? `Removed the policy of project ${project.name}` : `Project ${project.name} had no policy`));
  });
}
