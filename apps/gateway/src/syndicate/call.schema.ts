import { z } from "zod";
import { ABI_LIMITS } from "@relay/chain";
import { evmAddress, omittable } from "../http-schemas";

/** Syndicate's ReadContractRequest (POST /transact/call): validated as sendTransaction's fields are. */
export const readContractRequest = z
  .strictObject({
    chainId: z
      // An integer past 2^53 arrives exact, as a BigInt (middleware/exact-numbers.ts).
      .number({ error: (issue) => (typeof issue.input === "bigint" ? "chainId is too large" : "chainId must be an integer") })
      .int("chainId must be an integer")
      .positive("chainId must be positive")
      .max(Number.MAX_SAFE_INTEGER, "chainId is too large")
      .meta({ description: "Chain id of a chain configured on this relay", example: 31337 }),
    contractAddress: evmAddress("contractAddress"),
    functionSignature: z
      .string({ error: "functionSignature must be a string" })
      .min(1, "functionSignature must not be empty")
      .meta({
        description: "Human-readable signature with its outputs, e.g. `balanceOf(address owner) view returns (uint256)`; without `returns` the answer is the raw 0x-data",
        example: "balanceOf(address owner) view returns (uint256)",
      }),
    args: omittable(z.record(z.string(), z.unknown(), { error: "args must be an object keyed by argument name or index" })).meta({
      description: `Arguments by name or index, as for sendTransaction (at most ${ABI_LIMITS.values} values). Null or omitted: none.`,
    }),
  })
  .meta({ id: "ReadContractRequest" });

export const readContractResponse = z
  .unknown()
  .meta({
    id: "ReadContractResponse",
    description: "The decoded result: one output's value, or an array of them; integers as decimal strings, bytes as 0x-hex, named tuples as objects",
    example: "1000000000000000000",
  });
