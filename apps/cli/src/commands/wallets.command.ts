import { open, readFile, rm } from "node:fs/promises";
import type { Command } from "commander";
import { AppError, CUSTODY_BACKENDS, toError, type CustodyBackendName } from "@relay/core";
import { importWalletKey, newWalletKey, openWalletKey, resealWalletKey } from "@relay/custody";
import { storeWallet, type AuditAction, type WalletChange, type WalletRecord } from "@relay/db";
import { getAddress, isAddress } from "ethers";
import type { CliDeps } from "../deps";
import { usageError } from "../errors";
import { emit, formatDate, formatTable } from "../output";
import { resolveProject } from "../project-ref";
import { withJson, type JsonOption } from "./options";
import { resealAll, unopenedError } from "./reseal-all";

interface ProjectOption extends JsonOption {
  project: string;
}

const view = (w: WalletRecord) => ({
  id: w.id,
  projectId: w.projectId,
  address: w.address,
  walletType: w.walletType,
  backend: w.backend,
  isActive: w.isActive,
  retiredAt: w.retiredAt,
  createdAt: w.createdAt,
  updatedAt: w.updatedAt,
});

const walletEntry = (action: AuditAction, w: WalletRecord) => ({ action, projectId: w.projectId, walletAddress: w.address, subject: w.id, details: { backend: w.backend } });

const stateOf = (w: WalletRecord) => (w.retiredAt ? "retired" : w.isActive ? "active" : "inactive");

interface AddressOption extends ProjectOption {
  address: string;
}

const parseBackend = (value: string): CustodyBackendName => {
  const backend = CUSTODY_BACKENDS.find((b) => b === value.toUpperCase());
  if (!backend) throw usageError(`--backend ${JSON.stringify(String(value).slice(0, 20))} is not a custody backend: use local, hsm or kms`);
  return backend;
};

const parseAddress = (value: string): string => {
  if (!isAddress(value)) throw usageError(`--address ${JSON.stringify(String(value).slice(0, 60))} is not an EVM address (0x and 40 hex digits)`);
  return getAddress(value.toLowerCase());
};

/** The wallet a change leaves, or the error that says why there is none (shared with POST /wallet/toggleIsActive and /wallet/retire). */
function changed(change: WalletChange, projectName: string, address: string, what: string): WalletRecord {
  if (change.kind === "not-found") throw new AppError("NOT_FOUND", `Project ${projectName} has no wallet ${address}`);
  if (change.kind === "retired") throw usageError(`Wallet ${address} is retired: a retired wallet is never ${what} again`);
  return change.wallet;
}

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

export function registerWalletCommands(program: Command, deps: CliDeps): void {
  const wallets = program.command("wallets").description("create, import, list and re-seal project wallets");

  withJson(
    wallets
      .command("create")
      .description("generate a new wallet for a project: its key sealed locally (needs KEY_ENCRYPTION_KEY), or made in an HSM or AWS KMS (needs HSM_* or KMS_*)")
      .requiredOption("--project <id-or-name>", "project the wallet belongs to")
      .option("--backend <local|hsm|kms>", "where the key is made and kept (docs/custody.md)", "local"),
  ).action(async (options: ProjectOption & { backend: string }) => {
    const backend = parseBackend(options.backend);
    const makers = backend === "LOCAL" ? { kek: deps.getKek() } : deps.getCustodyBackends();
    const project = await resolveProject(deps.projects, options.project);
    const wallet = await storeWallet(deps.wallets, project.id, await newWalletKey(makers, backend));
    // After the insert, not in its transaction: storeWallet reads again after a refused insert
    // (another import of the same key at once), which a failed transaction could not.
    await deps.audit.record(walletEntry("wallet.created", wallet));
    emit(deps.output, options.json, view(wallet), () =>
      `Created wallet ${wallet.address} (${wallet.id}, key in ${wallet.backend}) for project ${project.name}: fund it on each chain it will send on`,
    );
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
    const wallet = await storeWallet(deps.wallets, project.id, key);
    await deps.audit.record(walletEntry("wallet.imported", wallet));
    emit(deps.output, options.json, view(wallet), () => `Imported wallet ${wallet.address} (${wallet.id}) into project ${project.name}`);
  });

  withJson(
    wallets
      .command("reseal")
      .description(
        "seal every LOCAL wallet key again under the active KEY_ENCRYPTION_KEY (after a rotation; the old key must be in KEY_ENCRYPTION_KEYS_PREVIOUS until this has run). HSM and KMS keys are not sealed here and are left as they are",
      ),
  ).action(async (options: JsonOption) => {
    const kek = deps.getKek();
    const result = await resealAll((page) => deps.wallets.listWithKeys(page), (wallet) => resealWalletKey(kek, wallet), (wallet, next) => deps.wallets.replaceKey(wallet.id, wallet.encryptedKey, next));
    // One entry for the run, whatever it managed: which keys were re-sealed is the wallets' own business.
    await deps.audit.record({ action: "wallet.resealed", details: { activeKeyId: kek.activeKeyId, resealed: result.resealed, alreadyCurrent: result.current, unopened: result.unopened.length } });
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
          { header: "TYPE", value: (w) => w.walletType },
          { header: "BACKEND", value: (w) => w.backend },
          { header: "STATE", value: stateOf },
          { header: "CREATED", value: (w) => formatDate(w.createdAt) },
          { header: "RETIRED", value: (w) => (w.retiredAt ? formatDate(w.retiredAt) : "") },
        ],
        `Project ${project.name} has no wallets: create one with \`npm run relay -- wallets create --project ${project.name}\``,
      ),
    );
  });

  const addressed = (name: string, description: string) =>
    withJson(
      wallets
        .command(name)
        .description(description)
        .requiredOption("--project <id-or-name>", "project the wallet belongs to")
        .requiredOption("--address <address>", "the wallet's address"),
    );

  addressed("deactivate", "stop choosing a wallet for new sends and signatures (what it has in flight finishes); `activate` undoes it").action(
    async (options: AddressOption) => {
      const project = await resolveProject(deps.projects, options.project);
      const address = parseAddress(options.address);
      const change = await deps.audit.change(
        (r) => r.wallets.setActive(project.id, address, false),
        (c) => (c.kind === "changed" ? walletEntry("wallet.deactivated", c.wallet) : null),
      );
      const wallet = changed(change, project.name, address, "activated");
      emit(deps.output, options.json, view(wallet), () => `Deactivated wallet ${wallet.address}: no new send or signature uses it (within 5 seconds); what it has in flight finishes`);
    },
  );

  addressed("activate", "choose a deactivated wallet for new sends and signatures again (not a retired one)").action(async (options: AddressOption) => {
    const project = await resolveProject(deps.projects, options.project);
    const address = parseAddress(options.address);
    const change = await deps.audit.change(
      (r) => r.wallets.setActive(project.id, address, true),
      (c) => (c.kind === "changed" ? walletEntry("wallet.activated", c.wallet) : null),
    );
    const wallet = changed(change, project.name, address, "activated");
    emit(deps.output, options.json, view(wallet), () => `Activated wallet ${wallet.address}`);
  });

  addressed("retire", "retire a wallet for good: never used again, never deleted (its sealed key stays, see `wallets export-key`)").action(
    async (options: AddressOption) => {
      const project = await resolveProject(deps.projects, options.project);
      const address = parseAddress(options.address);
      const change = await deps.audit.change(
        (r) => r.wallets.retire(project.id, address),
        (c) => (c.kind === "changed" ? walletEntry("wallet.retired", c.wallet) : null),
      );
      if (change.kind === "not-found") throw new AppError("NOT_FOUND", `Project ${project.name} has no wallet ${address}`);
      emit(deps.output, options.json, view(change.wallet), () =>
        change.kind === "retired"
          ? `Wallet ${address} was already retired (${formatDate(change.wallet.retiredAt!)}): nothing to do`
          : `Retired wallet ${address}: it is never used again. Its funds stay on it; recover them with \`npm run relay -- wallets export-key\``,
      );
    },
  );

  withJson(
    wallets
      .command("export-key")
      .description(
        "write a RETIRED wallet's private key to a new file (mode 0600) so its funds can be recovered with any wallet software (needs KEY_ENCRYPTION_KEY)",
      )
      .requiredOption("--project <id-or-name>", "project the wallet belongs to")
      .requiredOption("--address <address>", "the retired wallet's address")
      .requiredOption("--out <path>", "file to create for the key; an existing file is never overwritten")
      .option("--i-understand-this-reveals-the-key", "required: the file holds the key in the clear"),
  ).action(async (options: AddressOption & { out: string; iUnderstandThisRevealsTheKey?: boolean }) => {
    if (!options.iUnderstandThisRevealsTheKey) {
      throw usageError("export-key writes a private key in the clear: add --i-understand-this-reveals-the-key, keep the file offline and delete it once the funds are moved");
    }
    const project = await resolveProject(deps.projects, options.project);
    const address = parseAddress(options.address);
    const wallet = await deps.wallets.findByAddress(address);
    if (!wallet || wallet.projectId !== project.id) throw new AppError("NOT_FOUND", `Project ${project.name} has no wallet ${address}`);
    // An active wallet's nonces belong to the relay: the key used elsewhere would clash with them.
    if (!wallet.retiredAt) throw usageError(`Wallet ${address} is not retired: retire it first (\`npm run relay -- wallets retire\`) so the relay never sends from it again`);
    if (wallet.backend !== "LOCAL") {
      throw usageError(
        `export-key applies to LOCAL wallets only: wallet ${address}'s key is kept in ${wallet.backend} and cannot be read out. Sign a transfer of its funds with the ${wallet.backend}'s own tools (docs/custody.md)`,
      );
    }
    const stored = await deps.wallets.findWithKey(wallet.id);
    if (!stored) throw new AppError("NOT_FOUND", `Wallet ${address} is gone`);
    const signer = openWalletKey(deps.getKek(), stored);
    let file;
    try {
      file = await open(options.out, "wx", 0o600);
    } catch (e) {
      const code = (toError(e) as { code?: unknown }).code;
      throw usageError(`Cannot create --out ${options.out} (${typeof code === "string" ? code : toError(e).message}); it must not exist yet`);
    }
    try {
      // Recorded before the key is written: an export that cannot be recorded does not happen.
      await deps.audit.record({ ...walletEntry("wallet.key_exported", wallet), details: { out: options.out } }).catch(async (e: unknown) => {
        await file.close();
        await rm(options.out, { force: true });
        throw e;
      });
      await file.writeFile(`${signer.privateKey}\n`);
    } finally {
      await file.close().catch(() => undefined);
    }
    emit(deps.output, options.json, { address, out: options.out }, () => `Wrote the private key of retired wallet ${address} to ${options.out}: move its funds, then delete the file`);
  });
}
