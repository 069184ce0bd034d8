import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where Debian's softhsm2 puts its PKCS#11 module (scripts/lib/debian-packages.sh installs it). */
export const SOFTHSM_LIBRARY = "/usr/lib/softhsm/libsofthsm2.so";

export interface SoftHsmToken {
  library: string;
  tokenLabel: string;
  pin: string;
  soPin: string;
  /** SOFTHSM2_CONF: the module reads it at C_Initialize, so a process must have it in its environment first. */
  env: { SOFTHSM2_CONF: string };
  /** Removes the token directory and its configuration. */
  remove(): Promise<void>;
}

/**
 * A private SoftHSM2 token for one test file: its own token directory and SOFTHSM2_CONF in a
 * temporary directory, initialised with softhsm2-util, removed by `remove()`. Sets SOFTHSM2_CONF
 * in this process (the module is loaded here); child processes get `env`.
 */
export async function createSoftHsmToken(): Promise<SoftHsmToken> {
  if (!existsSync(SOFTHSM_LIBRARY)) {
    throw new Error(`${SOFTHSM_LIBRARY} is missing: install softhsm2 (bash -c 'source scripts/lib/debian-packages.sh && ensure_test_packages', which scripts/test.sh runs)`);
  }
  const dir = await mkdtemp(join(tmpdir(), "relay-softhsm-"));
  const tokens = join(dir, "tokens");
  await mkdir(tokens);
  const conf = join(dir, "softhsm2.conf");
  await writeFile(conf, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`);
  const tokenLabel = `relay-test-${randomBytes(4).toString("hex")}`;
  const pin = randomBytes(8).toString("hex");
  const soPin = randomBytes(8).toString("hex");
  const env = { SOFTHSM2_CONF: conf };
  await run("softhsm2-util", ["--init-token", "--free", "--label", tokenLabel, "--pin", pin, "--so-pin", soPin], { env: { ...process.env, ...env } });
  process.env.SOFTHSM2_CONF = conf;
  return { library: SOFTHSM_LIBRARY, tokenLabel, pin, soPin, env, remove: () => rm(dir, { recursive: true, force: true }) };
}
