import { loadCliConfig, loadCliWebhookKeyring, ConfigError, type Env } from "@relay/config";
import { AppError } from "@relay/core";
import type { Kek } from "@relay/custody";
import { devKeyHint, withDevKey, type DevKeys } from "./dev-keys";

/** A ConfigError's problems on one line, without its heading. */
const problemOf = (e: ConfigError) => e.message.replace(/^Invalid configuration:\s*/, "").replace(/\s*\n\s*/g, "; ");

/**
 * Loads the key-encryption key only when a command asks for it, so that listing or creating
 * projects works on a machine that does not hold the KEK. With `devKeys`, an unset
 * KEY_ENCRYPTION_KEY is read from the quick start's .dev/kek when there is one.
 */
export function createKekLoader(env: Env, devKeys?: DevKeys): () => Kek {
  return () => {
    const { env: withKey, file } = withDevKey(env, "KEY_ENCRYPTION_KEY", devKeys);
    try {
      const { kek } = loadCliConfig({ needsKek: true }, withKey);
      if (kek) return kek;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const why = file
        ? `read from ${file}`
        : `wallets create/import/reseal/export-key encrypt and open keys with KEY_ENCRYPTION_KEY: set it to the same 32-byte base64 key the workers use${devKeyHint("KEY_ENCRYPTION_KEY", devKeys)}`;
      throw new AppError("CONFIG", `${problemOf(e)} (${why})`, { cause: e });
    }
    throw new AppError("CONFIG", "KEY_ENCRYPTION_KEY is not configured");
  };
}

/**
 * Loads the webhook secrets' keyring (WEBHOOK_SECRET_KEY*) only for the command that needs it;
 * with `devKeys`, an unset WEBHOOK_SECRET_KEY is read from the quick start's .dev/webhook-key.
 */
export function createWebhookKeyringLoader(env: Env, devKeys?: DevKeys): () => Kek {
  return () => {
    const { env: withKey, file } = withDevKey(env, "WEBHOOK_SECRET_KEY", devKeys);
    try {
      return loadCliWebhookKeyring(withKey);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const why = file
        ? `read from ${file}`
        : `webhooks reseal opens and seals registrations' secrets with the WEBHOOK_SECRET_KEY* the gateway and webhook workers use${devKeyHint("WEBHOOK_SECRET_KEY", devKeys)}`;
      throw new AppError("CONFIG", `${problemOf(e)} (${why})`, { cause: e });
    }
  };
}
