import { z } from "zod";
import { policySchema } from "@relay/policies";

/** GET /transact/project/{projectId}/policy: the project's policy document (docs/policies.md). */
export const projectPolicyResponse = z
  .object({
    projectId: z.string().meta({ description: "The project" }),
    policy: policySchema
      .nullable()
      .meta({
        id: "Policy",
        description:
          "The policy document an operator set with `npm run relay -- policies set`; null: no policy (no limits). `contracts`: chain id → contracts that may be called (and, per contract, the functions, as signatures or 4-byte selectors; absent: any); once present, a chain without an entry allows no contract. Wei amounts are decimal strings; an absent limit does not apply.",
      }),
    updatedAt: z.string().nullable().meta({ description: "When the policy was last set (ISO 8601); null without a policy" }),
  })
  .meta({ id: "ProjectPolicy" });
