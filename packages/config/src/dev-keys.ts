/**
 * The quick start's development keys: `npm start` generates each into the clone's `.dev/` when its
 * variable is unset, and the CLI run in that clone reads it back for the same variable. One list,
 * so the two agree on the names. Never for production, where the variables come from the
 * operator's secret store.
 */
export const DEV_KEY_FILES = {
  KEY_ENCRYPTION_KEY: "kek",
  WEBHOOK_SECRET_KEY: "webhook-key",
} as const;

export type DevKeyVariable = keyof typeof DEV_KEY_FILES;
