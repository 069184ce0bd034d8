import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";

/**
 * The development key-encryption key: KEY_ENCRYPTION_KEY from the environment when set,
 * otherwise a random key generated once into a git-ignored file. Never for production: there
 * the key comes from the operator's secret store.
 */
export function devKek(file: string, variable = "KEY_ENCRYPTION_KEY"): { key: string; generated: boolean; fromEnv: boolean } {
  const fromEnv = process.env[variable];
  if (fromEnv) return { key: fromEnv, generated: false, fromEnv: true };
  if (existsSync(file)) return { key: readFileSync(file, "utf8").trim(), generated: false, fromEnv: false };
  mkdirSync(dirname(file), { recursive: true });
  const key = randomBytes(32).toString("base64");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true, fromEnv: false };
}
