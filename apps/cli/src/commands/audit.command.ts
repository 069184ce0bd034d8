import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { getAddress, isAddress } from "ethers";
import { AUDIT_ACTIONS, isAuditAction, type AuditRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatDate, formatTable } from "../output";
import { resolveProject } from "../project-ref";
import { parseTimeArg } from "./audit-time";
import { parseIntArg, withJson, type JsonOption } from "./options";

interface AuditListOptions extends JsonOption {
  project?: string;
  actor?: string;
  action?: string[];
  wallet?: string;
  since?: Date;
  until?: Date;
  limit: number;
}

const PREFIXES = [...new Set(AUDIT_ACTIONS.map((a) => `${a.slice(0, a.indexOf("."))}.`))];

/** --action: repeatable, each a comma list of actions or prefixes ending in "." (`wallet.`). */
const collectActions = (value: string, previous: string[] | undefined): string[] => {
  const given = value.split(",").map((a) => a.trim()).filter((a) => a !== "");
  for (const action of given) {
    if (!isAuditAction(action) && !PREFIXES.includes(action)) {
      throw new InvalidArgumentError(`unknown action ${JSON.stringify(action.slice(0, 60))}: one of ${AUDIT_ACTIONS.join(", ")}, or a prefix such as ${PREFIXES.join(", ")}`);
    }
  }
  return [...(previous ?? []), ...given];
};

const view = (e: AuditRecord) => ({
  id: e.id.toString(),
  at: e.at,
  actorType: e.actorType,
  actorId: e.actorId,
  action: e.action,
  projectId: e.projectId,
  walletAddress: e.walletAddress,
  subject: e.subject,
  details: e.details,
});

export function registerAuditCommands(program: Command, deps: CliDeps): void {
  const audit = program.command("audit").description("read the audit log: signatures made, and changes of wallets, keys and projects");

  withJson(
    audit
      .command("list")
      .description("list audit entries, newest first")
      .option("--project <id-or-name>", "only this project's entries")
      .option("--actor <key-id-or-operator>", "only entries by this API key id, operator name, or `relay`")
      .option("--action <actions>", "only these actions (repeatable or comma-separated; a prefix such as `wallet.` matches all of its kind)", collectActions)
      .option("--wallet <address>", "only entries about this wallet")
      .option("--since <time>", "entries at or after this ISO time, or this long ago (30m, 24h, 7d)", parseTimeArg("--since"))
      .option("--until <time>", "entries before this ISO time, or this long ago", parseTimeArg("--until"))
      .option("--limit <n>", "how many entries at most", parseIntArg("--limit", 1, 10_000), 100),
  ).action(async (options: AuditListOptions) => {
    if (options.wallet !== undefined && !isAddress(options.wallet)) {
      throw usageError(`--wallet ${JSON.stringify(String(options.wallet).slice(0, 60))} is not an EVM address (0x and 40 hex digits)`);
    }
    const project = options.project === undefined ? undefined : await resolveProject(deps.projects, options.project);
    const entries = await deps.audit.list({
      ...(project ? { projectId: project.id } : {}),
      ...(options.actor !== undefined ? { actorId: options.actor.trim() } : {}),
      ...(options.action ? { actions: options.action } : {}),
      ...(options.wallet !== undefined ? { walletAddress: getAddress(options.wallet.toLowerCase()) } : {}),
      ...(options.since ? { since: options.since } : {}),
      ...(options.until ? { until: options.until } : {}),
      limit: options.limit,
    });
    emit(deps.output, options.json, entries.map(view), () =>
      formatTable(
        entries,
        [
          { header: "ID", value: (e) => e.id.toString() },
          { header: "AT", value: (e) => formatDate(e.at) },
          { header: "ACTOR", value: (e) => `${e.actorType}:${e.actorId ?? "unknown"}` },
          { header: "ACTION", value: (e) => e.action },
          { header: "PROJECT", value: (e) => e.projectId ?? "-" },
          { header: "WALLET", value: (e) => e.walletAddress ?? "-" },
          { header: "SUBJECT", value: (e) => e.subject ?? "-" },
        ],
        "No audit entries match.",
      ),
    );
  });
}
