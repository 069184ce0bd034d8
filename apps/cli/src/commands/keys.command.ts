import type { Command } from "commander";
import { AppError, generateApiKey, parseApiKey } from "@relay/core";
import type { ApiKeyRecord } from "@relay/db";
import { parseCidrs, parseScopes } from "@relay/policies";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatDate, formatTable } from "../output";
import { isUuid, resolveProject } from "../project-ref";
import { withJson, type JsonOption } from "./options";

interface ProjectOption extends JsonOption {
  project: string;
}

/** What may be shown about a key: never its hash. */
const view = (k: ApiKeyRecord) => ({
  id: k.id,
  projectId: k.projectId,
  name: k.name,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
  scopes: k.scopes,
  /** Empty: any address. */
  allowedCidrs: k.allowedCidrs,
});

/** "any" (or nothing) removes the allowlist; otherwise CIDR ranges, comma-separated. */
const allowlistOf = (text: string): string[] => (text.trim().toLowerCase() === "any" ? [] : parseCidrs(text));

const keyIdOf = (keyId: string): string => {
  if (!isUuid(keyId)) {
    const hint = parseApiKey(keyId) ? "pass the key id shown by `npm run relay -- keys list`, not the token" : "expected a key id (a UUID) from `npm run relay -- keys list`";
    throw usageError(`"${parseApiKey(keyId) ? "rk_…" : keyId}" is not a key id: ${hint}`);
  }
  return keyId.toLowerCase();
};

export function registerKeyCommands(program: Command, deps: CliDeps): void {
  const keys = program.command("keys").description("create, list and revoke API keys");

  withJson(
    keys
      .command("create")
      .description("create an API key; its token is printed once and cannot be shown again")
      .requiredOption("--project <id-or-name>", "project the key belongs to")
      .option("--name <label>", "label to recognise the key by", "default")
      .option("--scopes <list>", "what the key may do, comma-separated: send, sign, read, webhooks, wallets (default: all)")
      .option("--allow-ip <cidrs>", "CIDR ranges the key may be used from, comma-separated, e.g. 10.0.0.0/8,2001:db8::/32 (default: any address)"),
  ).action(async (options: ProjectOption & { name: string; scopes?: string; allowIp?: string }) => {
    const label = options.name.trim();
    if (label === "" || label.length > 200) throw usageError("A key name must be 1-200 characters");
    const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
    const allowedCidrs = options.allowIp === undefined ? undefined : allowlistOf(options.allowIp);
    const project = await resolveProject(deps.projects, options.project);
    const key = generateApiKey();
    const record = await deps.audit.change(
      (r) => r.apiKeys.create({ id: key.id, projectId: project.id, name: label, secretHash: key.secretHash, ...(scopes ? { scopes } : {}), ...(allowedCidrs ? { allowedCidrs } : {}) }),
      (k) => ({ action: "api_key.created", projectId: k.projectId, subject: k.id, details: { name: k.name, scopes: k.scopes, allowedCidrs: k.allowedCidrs } }),
    );
    emit(deps.output, options.json, { ...view(record), token: key.token }, () =>
      [
        `Created API key ${record.id} (${record.name}) for project ${project.name}.`,
        "Token, shown only now; store it in the project's secret store:",
        "",
        `  ${key.token}`,
      ].join("\n"),
    );
  });

  withJson(
    keys
      .command("list")
      .description("list a project's API keys (never their secrets)")
      .requiredOption("--project <id-or-name>", "project whose keys to list"),
  ).action(async (options: ProjectOption) => {
    const project = await resolveProject(deps.projects, options.project);
    const rows = await deps.apiKeys.listByProject(project.id);
    emit(deps.output, options.json, rows.map(view), () =>
      formatTable(
        rows,
        [
          { header: "ID", value: (k) => k.id },
          { header: "NAME", value: (k) => k.name },
          { header: "CREATED", value: (k) => formatDate(k.createdAt) },
          { header: "REVOKED", value: (k) => formatDate(k.revokedAt) },
          { header: "SCOPES", value: (k) => k.scopes.join(",") },
          { header: "ALLOWED IPS", value: (k) => (k.allowedCidrs.length === 0 ? "any" : k.allowedCidrs.join(",")) },
        ],
        `Project ${project.name} has no API keys: create one with \`npm run relay -- keys create --project ${project.name}\``,
      ),
    );
  });

  withJson(
    keys.command("revoke").description("revoke an API key; the gateway refuses it once its short auth cache expires").argument("<keyId>", "id shown by `keys list`"),
  ).action(async (keyId: string, options: JsonOption) => {
    const id = keyIdOf(keyId);
    const { revokedNow, record } = await deps.audit.change(
      async (r) => ({ revokedNow: await r.apiKeys.revoke(id), record: await r.apiKeys.findById(id) }),
      ({ revokedNow, record }) => (revokedNow && record ? { action: "api_key.revoked", projectId: record.projectId, subject: record.id, details: { name: record.name } } : null),
    );
    if (!record) throw new AppError("NOT_FOUND", `No API key with id ${id}: run \`npm run relay -- keys list --project <project>\``);
    emit(deps.output, options.json, { ...view(record), alreadyRevoked: !revokedNow }, () =>
      revokedNow
        ? `Revoked API key ${record.id} (${record.name})`
        : `API key ${record.id} (${record.name}) was already revoked at ${formatDate(record.revokedAt)}`,
    );
  });

  withJson(
    keys
      .command("restrict")
      .description("change what an existing key may do and where from; gateways apply it within their auth cache time")
      .argument("<keyId>", "id shown by `keys list`")
      .option("--scopes <list>", "the key's scopes from now on, comma-separated: send, sign, read, webhooks, wallets")
      .option("--allow-ip <cidrs>", 'the CIDR ranges it may be used from from now on, comma-separated; "any" removes the allowlist'),
  ).action(async (keyId: string, options: JsonOption & { scopes?: string; allowIp?: string }) => {
    const id = keyIdOf(keyId);
    if (options.scopes === undefined && options.allowIp === undefined) throw usageError("give --scopes, --allow-ip or both");
    const scopes = options.scopes === undefined ? undefined : parseScopes(options.scopes);
    const allowedCidrs = options.allowIp === undefined ? undefined : allowlistOf(options.allowIp);
    const record = await deps.audit.change(
      (r) => r.apiKeys.restrict(id, { ...(scopes ? { scopes } : {}), ...(allowedCidrs ? { allowedCidrs } : {}) }),
      (k) => k && { action: "api_key.restricted", projectId: k.projectId, subject: k.id, details: { name: k.name, scopes: k.scopes, allowedCidrs: k.allowedCidrs } },
    );
    if (!record) throw new AppError("NOT_FOUND", `No API key with id ${id}: run \`npm run relay -- keys list --project <project>\``);
    emit(deps.output, options.json, view(record), () =>
      `API key ${record.id} (${record.name}) may now ${record.scopes.join(", ")} from ${record.allowedCidrs.length === 0 ? "any address" : record.allowedCidrs.join(", ")}`,
    );
  });
}
