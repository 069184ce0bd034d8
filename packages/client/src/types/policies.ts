/** A contract a project's policy allows on a chain: any function, or only those listed (signatures or 4-byte selectors). */
export interface AllowedContract {
  address: string;
  functions?: string[] | undefined;
}

/** A project's policy (docs/policies.md); an absent field sets no limit. Wei as decimal strings. */
export interface Policy {
  /** Chain id (decimal string) → contracts that may be called; once present, a chain without an entry allows none. */
  contracts?: Record<string, AllowedContract[]> | undefined;
  valuePerTransactionWei?: string | undefined;
  valuePerWalletPerDayWei?: string | undefined;
  gasPerWalletPerDayWei?: string | undefined;
}

/** GET /transact/project/{projectId}/policy. */
export interface ProjectPolicy {
  projectId: string;
  /** Null: no policy. */
  policy: Policy | null;
  updatedAt: string | null;
}

/** GET /transact/projects: the projects the credential reads (an API key's own). */
export interface Projects {
  projects: { projectId: string; name: string; createdAt: string }[];
}
