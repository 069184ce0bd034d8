import type { Logger } from "@relay/core";
import type { Sql } from "../client";

export interface AuditPrivileges {
  /** The role the app's connections log in as. */
  role: string;
  /** Whether that role could UPDATE or DELETE audit_log entries (the owner and superusers can). */
  canRewrite: boolean;
}

/** What the app's own database role may do to the audit log. */
export async function readAuditPrivileges(sql: Sql): Promise<AuditPrivileges> {
  const { rows } = await sql.query<AuditPrivileges>(
    `SELECT current_user::text AS role,
            has_table_privilege('audit_log', 'UPDATE') OR has_table_privilege('audit_log', 'DELETE')
              OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS "canRewrite"`,
  );
  return rows[0]!;
}

/**
 * Logs a warning when the app runs as a role that could rewrite the audit log (docs/audit.md,
 * "The apps' database role"). Never fails the start: the triggers still refuse a change, and a
 * development database is often used as its owner. A check that cannot run is logged and ignored.
 */
export async function warnIfAuditWritable(sql: Sql, logger: Logger): Promise<void> {
  try {
    const { role, canRewrite } = await readAuditPrivileges(sql);
    if (canRewrite) {
      logger.warn(
        { role },
        `database role ${role} may UPDATE or DELETE audit_log entries: run the apps as a LOGIN role that is a member of relay_app (docs/audit.md)`,
      );
    }
  } catch (e) {
    logger.warn({ err: e }, "could not check the database role's privileges on audit_log");
  }
}
