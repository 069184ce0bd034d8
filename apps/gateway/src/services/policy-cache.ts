import { AppError } from "@relay/core";
import type { PolicyRepository } from "@relay/db";
import { compilePolicy, parsePolicy, type CompiledPolicy } from "@relay/policies";

export interface PolicyCacheDeps {
  policies: Pick<PolicyRepository, "get">;
  /** How long a project's policy is reused; a change takes effect within this time. 0: read every time. */
  ttlMs: number;
  now?: () => number;
}

const MAX_CACHED = 10_000;

/**
 * A project's policy as requests are checked against it, read through a TTL cache like API keys
 * (settings.authCacheTtlMs): a policy an operator sets or clears applies to every gateway within
 * that time. A project without a policy is cached too (null), so it costs no read per request.
 */
export function createPolicyCache(deps: PolicyCacheDeps): (projectId: string) => Promise<CompiledPolicy | null> {
  const now = deps.now ?? Date.now;
  const entries = new Map<string, { policy: CompiledPolicy | null; until: number }>();
  return async (projectId) => {
    const cached = entries.get(projectId);
    if (cached && cached.until > now()) return cached.policy;
    const record = await deps.policies.get(projectId);
    let policy: CompiledPolicy | null = null;
    if (record) {
      try {
        policy = compilePolicy(projectId, parsePolicy(record.policy));
      } catch (e) {
        // Written through the same schema, so only a hand edit of the row gets here: refuse rather than send unchecked.
        throw new AppError("INTERNAL", `project ${projectId}'s stored policy does not validate (${(e as Error).message}); an operator sets it again with \`npm run relay -- policies set\``, { cause: e });
      }
    }
    if (deps.ttlMs > 0) {
      if (entries.size >= MAX_CACHED) entries.clear();
      entries.set(projectId, { policy, until: now() + deps.ttlMs });
    }
    return policy;
  };
}

export type PolicyCache = ReturnType<typeof createPolicyCache>;
