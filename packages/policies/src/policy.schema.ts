import { parseFunctionSignature } from "@relay/chain";
import { AppError } from "@relay/core";
import { z } from "zod";

/** Wei as a decimal string (JSON has no integers this wide), at most uint256. */
const wei = z
  .string()
  .regex(/^(0|[1-9]\d{0,77})$/, "a whole number of wei as a decimal string, e.g. \"1000000000000000000\"")
  .refine((s) => BigInt(s) < 2n ** 256n, "at most 2^256 - 1 wei");

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte hex address");

/** A 4-byte selector (0x + 8 hex digits) or a function signature such as "transfer(address to, uint256 amount)". */
const functionRef = z
  .string()
  .min(1)
  .max(1000)
  .superRefine((text, ctx) => {
    if (/^0x[0-9a-fA-F]{8}$/.test(text)) return;
    try {
      parseFunctionSignature(text);
    } catch {
      ctx.addIssue({ code: "custom", message: `"${text.slice(0, 80)}" is neither a 4-byte selector (0x + 8 hex digits) nor a function signature such as "transfer(address,uint256)"` });
    }
  });

const allowedContract = z.strictObject({
  address,
  /** Absent: any function of the contract. */
  functions: z.array(functionRef).min(1, "list at least one function, or leave `functions` out to allow any").max(1000).optional(),
});

/**
 * A project's policy document (docs/policies.md). Every field is optional; an absent one sets no
 * limit. `contracts`, once present, covers every chain: a chain without an entry allows no contract.
 */
export const policySchema = z.strictObject({
  contracts: z
    .record(z.string().regex(/^[1-9]\d{0,18}$/, "a chain id as a decimal string"), z.array(allowedContract).max(1000))
    .optional(),
  valuePerTransactionWei: wei.optional(),
  valuePerWalletPerDayWei: wei.optional(),
  gasPerWalletPerDayWei: wei.optional(),
});

export type Policy = z.infer<typeof policySchema>;

/** `value` as a policy document, or a 400 naming the first field that is wrong and why. */
export function parsePolicy(value: unknown): Policy {
  const result = policySchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length === 0 ? "the policy document" : issue.path.map(String).join(".");
  // A record key's own message ("a chain id as a decimal string") is one level down.
  const message = issue.code === "invalid_key" ? (issue.issues[0]?.message ?? issue.message) : issue.message;
  throw new AppError("BAD_REQUEST", `policy ${path}: ${message}`);
}
