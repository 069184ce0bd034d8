import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_KEY_FILES, type DevKeyVariable, type Env } from "@relay/config";

/** The quick start's key files of the clone the CLI runs in, and how the CLI says it uses one. */
export interface DevKeys {
  /** The clone's `.dev` directory, where `npm start` wrote them. */
  dir: string;
  /** Receives the line naming the file used (stderr: stdout may be `--json`). */
  announce: (line: string) => void;
}

/**
 * `env` with `variable` read from the quick start's key file when the variable is unset (or
 * empty) and the file exists, said in one line that names the file, never the key. Otherwise
 * `env` as it is, and `file` undefined.
 */
export function withDevKey(env: Env, variable: DevKeyVariable, devKeys: DevKeys | undefined): { env: Env; file?: string } {
  if (!devKeys || env[variable]) return { env };
  const file = join(devKeys.dir, DEV_KEY_FILES[variable]);
  if (!existsSync(file)) return { env };
  const key = readFileSync(file, "utf8").trim();
  devKeys.announce(`note: ${variable} is unset: using the quick start's development key in ${file}\n`);
  return { env: { ...env, [variable]: key }, file };
}

/** What to add to a message about `variable` when no key was found, for someone trying the relay from a clone. */
export function devKeyHint(variable: DevKeyVariable, devKeys: DevKeys | undefined): string {
  if (!devKeys) return "";
  return `; in a clone of the relay, \`npm start\` creates a development key in ${join(devKeys.dir, DEV_KEY_FILES[variable])}, which the CLI then uses`;
}
