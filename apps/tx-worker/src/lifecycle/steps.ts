import type { TransactionRecord } from "@relay/db";
import type { UnfinishedStatus } from "@relay/lifecycle";
import type { RunAgain } from "@relay/queue";
import type { StepContext, StepDeps } from "./deps";
import { follow } from "./follow";
import { resume } from "./resume";
import { submit } from "./submit";

/**
 * One run of the step for a transaction's status: when to look again, or "done" when there is
 * nothing more for the job to do now (the transaction moved on, here or by another run).
 */
export type Step = (deps: StepDeps, tx: TransactionRecord, context: StepContext) => Promise<RunAgain | "done">;

/**
 * The step for each status a transaction's job still has work in. Typed over every unfinished
 * status, so a status added to the lifecycle does not compile until it has a step here.
 */
export const STEPS: { readonly [S in UnfinishedStatus]: Step } = {
  PENDING: submit,
  SUBMITTED: follow,
  PAUSED: resume,
};
