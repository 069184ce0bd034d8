/**
 * Every action the audit log records, in one place (docs/audit.md lists them for users). The
 * signature, transaction and nonce-filler actions are written by Postgres triggers (migration
 * 20261127000000_audit_log), the rest by recordAudit; the CLI's --action filter is checked against
 * this list.
 */
export const AUDIT_ACTIONS = [
  "signature.message",
  "signature.typed_data",
  "transaction.signed",
  "transaction.cancel_signed",
  "nonce_filler.signed",
  "project.created",
  "wallet.created",
  "wallet.imported",
  "wallet.activated",
  "wallet.deactivated",
  "wallet.retired",
  "wallet.key_exported",
  "wallet.resealed",
  "api_key.created",
  "api_key.revoked",
  "api_key.restricted",
  "policy.changed",
  "policy.cleared",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who did it: an API key (its id), an operator (a name: RELAY_OPERATOR or the OS user of the CLI),
 * or the relay on its own (top-ups, nonce fillers; id "relay").
 */
export const AUDIT_ACTOR_TYPES = ["api_key", "operator", "relay"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** An API key's id is null only for a request from before the relay carried it (an older gateway's job). */
export type AuditActor = { type: "api_key"; id: string | null } | { type: "operator"; id: string } | { type: "relay" };

export const RELAY_ACTOR: AuditActor = { type: "relay" };

export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);
