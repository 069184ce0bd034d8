import type { EventCallbackRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface ClearRetiredSecretsDeps {
  callbacks: Pick<EventCallbackRepository, "clearRetiredSecrets">;
  now: () => number;
}

/**
 * How long after its grace period a retired secret is still kept. Each worker stops signing with
 * it by its own clock; erasing it by this worker's clock the moment the period ends would take it
 * from a worker whose clock runs behind while, by that clock, the period still runs.
 */
export const CLOCK_SKEW_MARGIN_MS = 5 * 60_000;

/**
 * Erases the webhook secrets that rotations retired once their grace period is over, plus
 * CLOCK_SKEW_MARGIN_MS (docs/webhooks.md, "Rotating a secret"): after it nothing signs with them,
 * so nothing keeps them.
 */
export function createClearRetiredSecretsProcessor(deps: ClearRetiredSecretsDeps): Processor<"clearRetiredSecrets"> {
  return async (_payload, { logger }) => {
    const cleared = await deps.callbacks.clearRetiredSecrets(new Date(deps.now() - CLOCK_SKEW_MARGIN_MS));
    if (cleared > 0) logger.info({ cleared }, "erased webhook secrets whose rotation grace period ended");
    return { cleared };
  };
}
