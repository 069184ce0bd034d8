import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { AppError, toError } from "@relay/core";
import { generateWalletKey, importWalletKey, resealWalletKey, type NewWalletKey } from "@relay/custody";
import type { WalletRecord } from "@relay/db";
import type { CliDeps } from "../deps";
import { isUniqueViolation, usageError } from "../errors";
import { emit, formatDate, formatTable } from "../output";
import { resolveProject } from "../project-ref";
import { withJson, type JsonOption } from "./options";
import { resealAll, unopenedError } from "./reseal-all";

interface ProjectOption extends JsonOption {
  project: string;
}

const view = (w: WalletRecord) => ({ id: w.id, projectId: w.projectId, address: w.address, createdAt: w.createdAt });

/**
 * The key comes from a file or stdin, never from argv, where `ps` and shell history would show
 * it. No message below repeats what was read.
 */
async function readPrivateKey(deps: CliDeps, file: string | undefined): Promise<string> {
  let text: string;
  try {
    text = file === undefined ? await deps.readSecretStdin() : await readFile(file, "utf8");
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (toError(e) as { code?: unknown }).code;
    throw usageError(`Cannot read the private key from ${file === undefined ? "stdin" : `--private-key-file ${file}`} (${typeof code === "string" ? code : toError(e).message})`);
  }
  if (text.trim() === "") {
    throw usageError(`No private key in ${file === undefined ? "stdin: pipe it in, e.g. `npm run relay -- wallets import --project p < key.txt`" : file}`);
  }
  return text;
}

async function store(deps: CliDeps, projectId: string, key: NewWalletKey): Promise<WalletRecord> {
  const conflict = (owner: WalletRecord | null, cause?: unknown) =>
    new AppError(
      "CONFLICT",
      owner && owner.projectId === projectId
        ? `Wallet ${key.address} is already in this project (id ${owner.id}): nothing to do`
        : `Wallet ${key.address} already exists in another project: an address can belong to one project only`,
      { cause },
    );
  const taken = await deps.wallets.findByAddress(key.address);
  if (taken) throw conflict(taken);
  // The unique address decides between two imports of the same key running at once.
  return deps.wallets.create({ projectId, address: key.address, sealKey: key.sealFor }).catch(async (e: unknown) => {
    throw isUniqueViolation(e) ? conflict(await deps.wallets.findByAddress(key.address), e) : e;
  });
}

export function registerWalletCommands(program: Command, deps: CliDeps): void {
  const wallets = program.command("wallets").description("create, import, list and re-seal project wallets");

  withJson(
    wallets
      .command("create")
      .description("generate a new wallet for a project (needs KEY_ENCRYPTION_KEY)")
      .requiredOption("--project <id-or-name>", "project the wallet belongs to"),
  ).action(async (options: ProjectOption) => {
    const kek = deps.getKek();
    const project = await resolveProject(deps.projects, options.project);
    const wallet = await store(deps, project.id, generateWalletKey(kek));
    emit(deps.output, options.json, view(wallet), () => `Created wallet ${wallet.address} (${wallet.id}) for project ${project.name}: fund it on each chain it will send on`);
  });

  withJson(
    wallets
      .command("import")
      .description("import an existing private key, read from stdin or a file, never from the command line (needs KEY_ENCRYPTION_KEY)")
      .requiredOption("--project <id-or-name>", "project the wallet belongs to")
      .option("--private-key-file <path>", "read the hex private key from this file instead of stdin"),
  ).action(async (options: ProjectOption & { privateKeyFile?: string }) => {
    const kek = deps.getKek();
    const project = await resolveProject(deps.projects, options.project);
    const key = importWalletKey(kek, await readPrivateKey(deps, options.privateKeyFile));
    const wallet = await store(deps, project.id, key);
    emit(deps.output, options.json, view(wallet), () => `Imported wallet ${wallet.address} (${wallet.id}) into project ${project.name}`);
  });

  withJson(
    wallets
      .command("reseal")
      .description(
        "seal every wallet key again under the active KEY_ENCRYPTION_KEY (after a rotation; the old key must be in KEY_ENCRYPTION_KEYS_PREVIOUS until this has run)",
      ),
  ).action(async (options: JsonOption) => {
    const kek = deps.getKek();
    const result = await resealAll((page) => deps.wallets.listWithKeys(page), (wallet) => resealWalletKey(kek, wallet), (wallet, next) => deps.wallets.replaceKey(wallet.id, wallet.encryptedKey, next));
    if (result.unopened.length > 0) {
      throw unopenedError(result, { what: "wallet key(s)", records: "wallets" }, { key: "KEY_ENCRYPTION_KEY", keyId: "KEY_ENCRYPTION_KEY_ID", previous: "KEY_ENCRYPTION_KEYS_PREVIOUS" }, kek.activeKeyId);
    }
    emit(deps.output, options.json, { activeKeyId: kek.activeKeyId, resealed: result.resealed, alreadyCurrent: result.current }, () =>
      `Re-sealed ${result.resealed} wallet key(s) under ${kek.activeKeyId}; ${result.current} already were. Older keys can now leave KEY_ENCRYPTION_KEYS_PREVIOUS.`,
    );
  });

  withJson(
    wallets
      .command("list")
      .description("list a project's wallets")
      .requiredOption("--project <id-or-name>", "project whose wallets to list"),
  ).action(async (options: ProjectOption) => {
    const project = await resolveProject(deps.projects, options.project);
    const rows = await deps.wallets.listByProject(project.id);
    emit(deps.output, options.json, rows.map(view), () =>
      formatTable(
        rows,
        [
          { header: "ID", value: (w) => w.id },
          { header: "ADDRESS", value: (w) => w.address },
          { header: "CREATED", value: (w) => formatDate(w.createdAt) },
        ],
        `Project ${project.name} has no wallets: create one with \`npm run relay -- wallets create --project ${project.name}\``,
      ),
    );
  });
}
