import type { EventCallbackRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface ClearRetiredSecretsDeps {
  callbacks: Pick<EventCallbackRepository, "clearRetiredSecrets">;
  now: () => number;
}

/**
 * Erases the webhook secrets that rotations retired once their grace period is over
 * (docs/webhooks.md, "Rotating a secret"): after it nothing signs with them, so nothing keeps them.
 */
export function createClearRetiredSecretsProcessor(deps: ClearRetiredSecretsDeps): Processor<"clearRetiredSecrets"> {
  return async (_payload, { logger }) => {
    const cleared = await deps.callbacks.clearRetiredSecrets(new Date(deps.now()));
    if (cleared > 0) logger.info({ cleared }, "erased webhook secrets whose rotation grace period ended");
    return { cleared };
  };
}
