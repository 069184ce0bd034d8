import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where Debian's softhsm2 puts its PKCS#11 module (scripts/lib/debian-packages.sh installs it). */
export const SOFTHSM_LIBRARY = "/usr/lib/softhsm/libsofthsm2.so";

/**
 * The run's private SoftHSM2 store: a token directory and a SOFTHSM2_CONF naming it, in a
 * temporary directory. Made by jest's global setup, which exports SOFTHSM2_CONF before the
 * workers start: the module reads it with getenv at C_Initialize, and a test's `process.env` is
 * jest's copy, which a native library never sees. Removed by the global teardown.
 */
export function createSoftHsmStore(): { conf: string; remove: () => void } | null {
  if (!existsSync(SOFTHSM_LIBRARY)) return null;
  removeStaleStores();
  const dir = mkdtempSync(join(tmpdir(), STORE_PREFIX));
  mkdirSync(join(dir, "tokens"));
  const conf = join(dir, "softhsm2.conf");
  writeFileSync(conf, `directories.tokendir = ${join(dir, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  return { conf, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const STORE_PREFIX = "relay-softhsm-";
/** Far beyond any test run: a store this old is a crashed run's, whose teardown never ran. */
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;

function removeStaleStores(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(STORE_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    try {
      if (Date.now() - statSync(dir).mtimeMs > STALE_AFTER_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

export interface SoftHsmToken {
  library: string;
  tokenLabel: string;
  pin: string;
  soPin: string;
  /** For child processes: the run's SOFTHSM2_CONF. */
  env: { SOFTHSM2_CONF: string };
  /** Deletes the token and its keys. */
  remove(): Promise<void>;
}

/**
 * A token of one test file's own in the run's store (softhsm2-util --init-token), with random PINs.
 * `remove()` deletes it; the store goes with the run.
 */
/**
 * `ownStore`: the token goes into a store of its own instead of the run's, for a test whose token
 * is used only by processes it starts (they get the store in `env`): other test files adding and
 * deleting tokens in the run's store meanwhile cannot race with those processes' start, when
 * SoftHSM2 reads the store's token directory.
 */
export async function createSoftHsmToken(options: { ownStore?: boolean } = {}): Promise<SoftHsmToken> {
  if (!existsSync(SOFTHSM_LIBRARY)) {
    throw new Error(`${SOFTHSM_LIBRARY} is missing: install softhsm2 (bash -c 'source scripts/lib/debian-packages.sh && ensure_test_packages', which scripts/test.sh runs)`);
  }
  const store = options.ownStore ? createSoftHsmStore() : null;
  const conf = store?.conf ?? process.env.SOFTHSM2_CONF;
  if (!conf || !existsSync(conf)) throw new Error("SOFTHSM2_CONF is not set: run through the root jest config (its global setup makes the run's SoftHSM2 store)");
  const tokenLabel = `relay-test-${randomBytes(4).toString("hex")}`;
  const pin = randomBytes(8).toString("hex");
  const soPin = randomBytes(8).toString("hex");
  const env = { SOFTHSM2_CONF: conf };
  await run("softhsm2-util", ["--init-token", "--free", "--label", tokenLabel, "--pin", pin, "--so-pin", soPin], { env: { ...process.env, ...env } });
  return {
    library: SOFTHSM_LIBRARY,
    tokenLabel,
    pin,
    soPin,
    env,
    remove: async () => {
      if (store) return store.remove();
      await run("softhsm2-util", ["--delete-token", "--token", tokenLabel], { env: { ...process.env, ...env } });
    },
  };
}
