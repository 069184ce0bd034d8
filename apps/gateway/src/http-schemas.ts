import { z } from "zod";
import { checksumAddress } from "@relay/chain";

/** Pieces of request and response schemas shared by several routes. */

export const errorBody = z
  .object({ message: z.string().meta({ description: "What went wrong and what to do about it" }) })
  .meta({ id: "Error" });

/**
 * A UUID in any case, lower-cased: Postgres reads UUIDs case-insensitively and returns them lower
 * case, so comparisons in code (whose project is this?) must see the same form.
 */
export const uuid = (error: string) => z.uuid({ error }).toLowerCase();

/**
 * An optional field that may also be sent as null: generated clients (Jackson's default, many
 * OpenAPI generators) write an unset field as `null`, and the contract only says "not required".
 * Null reads as omitted.
 */
export const omittable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

export const projectIdParam = z.object({
  projectId: uuid("projectId in the path must be a UUID").meta({ description: "Project id (UUID)" }),
});

/** An EVM address in any case; mixed case must carry a valid EIP-55 checksum. Output: checksummed. */
export const evmAddress = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .transform((value, ctx) => {
      if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
        ctx.addIssue({ code: "custom", message: `${field} must be a 0x-prefixed 20-byte hex address` });
        return z.NEVER;
      }
      try {
        return checksumAddress(value); // checks a mixed-case checksum and returns the checksummed form
      } catch {
        ctx.addIssue({ code: "custom", message: `${field} has an invalid EIP-55 checksum (send it all lower-case to skip the check)` });
        return z.NEVER;
      }
    })
    .meta({ description: "EVM address, 0x-prefixed", example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

/** A field name from a request as a message shows it: quoted, and cut when long (it can be anything). */
export function fieldName(key: PropertyKey): string {
  const text = String(key);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** "field: problem; field: problem" — one line a user can act on. */
export function describeIssues(error: z.ZodError, input: unknown): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map((p) => (/^[A-Za-z0-9_]{1,40}$/.test(String(p)) ? String(p) : fieldName(p))).join(".");
    if (issue.code === "unrecognized_keys") {
      const more = issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : "";
      return `unknown field(s) ${issue.keys.slice(0, 5).map(fieldName).join(", ")}${more}${path ? ` in ${path}` : ""}`;
    }
    if (issue.code === "invalid_type" && valueAt(input, issue.path) === undefined) return `${path || "body"} is required`;
    return path && !issue.message.startsWith(path) ? `${path}: ${issue.message}` : issue.message;
  });
  const more = error.issues.length > 5 ? ` (and ${error.issues.length - 5} more)` : "";
  return parts.join("; ") + more;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}
