import { loadCliConfig, loadCliWebhookKeyring, ConfigError, type Env } from "@relay/config";
import { AppError } from "@relay/core";
import type { Kek } from "@relay/custody";

/**
 * Loads the key-encryption key only when a command asks for it, so that listing or creating
 * projects works on a machine that does not hold the KEK.
 */
export function createKekLoader(env: Env): () => Kek {
  return () => {
    try {
      const { kek } = loadCliConfig({ needsKek: true }, env);
      if (kek) return kek;
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const problem = e.message.replace(/^Invalid configuration:\s*/, "").replace(/\s*\n\s*/g, "; ");
      throw new AppError(
        "CONFIG",
        `${problem} (wallets create/import/reseal encrypt keys with KEY_ENCRYPTION_KEY: set it to the same 32-byte base64 key the workers use)`,
        { cause: e },
      );
    }
    throw new AppError("CONFIG", "KEY_ENCRYPTION_KEY is not configured");
  };
}

/** Loads the webhook secrets' keyring (WEBHOOK_SECRET_KEY*) only for the command that needs it. */
export function createWebhookKeyringLoader(env: Env): () => Kek {
  return () => {
    try {
      return loadCliWebhookKeyring(env);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const problem = e.message.replace(/^Invalid configuration:\s*/, "").replace(/\s*\n\s*/g, "; ");
      throw new AppError("CONFIG", `${problem} (webhooks reseal opens and seals registrations' secrets with the WEBHOOK_SECRET_KEY* the gateway and webhook workers use)`, { cause: e });
    }
  };
}
