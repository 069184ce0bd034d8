import type { Database } from "../client";

export type ProjectFundingDatabase = Pick<Database, "projectFunding">;

/** Managed gas of a project on a chain (docs/funding.md). */
export interface ProjectFundingRecord {
  projectId: string;
  chainId: bigint;
  fundingAddress: string;
  targetBalanceWei: bigint;
  createdAt: Date;
  updatedAt: Date;
}

const toRecord = (row: { projectId: string; chainId: bigint; fundingAddress: string; targetBalanceWei: { toFixed(): string }; createdAt: Date; updatedAt: Date }): ProjectFundingRecord => ({
  ...row,
  targetBalanceWei: BigInt(row.targetBalanceWei.toFixed()),
});

/** The operator's settings of managed gas (the CLI's `funding` commands). */
export function createProjectFundingRepository(db: ProjectFundingDatabase) {
  return {
    /** Sets (or replaces) the funding wallet and target of a project on a chain. */
    set: async (input: { projectId: string; chainId: bigint; fundingAddress: string; targetBalanceWei: bigint }): Promise<ProjectFundingRecord> => {
      const data = { fundingAddress: input.fundingAddress, targetBalanceWei: input.targetBalanceWei.toString() };
      return toRecord(
        await db.projectFunding.upsert({
          where: { projectId_chainId: { projectId: input.projectId, chainId: input.chainId } },
          create: { projectId: input.projectId, chainId: input.chainId, ...data },
          update: data,
        }),
      );
    },
    /** Every setting, or a project's, by project then chain. */
    list: async (projectId?: string): Promise<ProjectFundingRecord[]> =>
      (await db.projectFunding.findMany({ where: projectId ? { projectId } : {}, orderBy: [{ projectId: "asc" }, { chainId: "asc" }] })).map(toRecord),
    /** Ends managed gas of a project on a chain (top-ups already decided still finish); whether there was one. */
    remove: async (projectId: string, chainId: bigint): Promise<boolean> =>
      (await db.projectFunding.deleteMany({ where: { projectId, chainId } })).count === 1,
  };
}

export type ProjectFundingRepository = ReturnType<typeof createProjectFundingRepository>;
