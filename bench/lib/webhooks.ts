import { createRequire } from "node:module";
import { resolve } from "node:path";

/**
 * @relay/webhooks as the webhook worker loads it (the benchmarks do not depend on it): the
 * baseline signs and POSTs with the very module the worker uses.
 */
export const webhooks = createRequire(resolve(__dirname, "../../apps/webhook-worker/package.json"))(
  "@relay/webhooks",
) as typeof import("../../packages/webhooks/src");
