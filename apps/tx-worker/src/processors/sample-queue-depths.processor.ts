import type { QueueDepthRepository } from "@relay/db";
import type { Processor } from "@relay/queue";

export interface SampleQueueDepthsDeps {
  queueDepths: Pick<QueueDepthRepository, "sample">;
  now: () => number;
}

/**
 * Once a minute, records how much of each project's work waits (its unfinished transactions and
 * deliveries still to make) for the activity page's queue depth chart, and drops samples older
 * than a day. The repository samples a minute once, so any number of replicas running it, or a
 * run repeated, writes one sample per minute.
 */
export function createSampleQueueDepthsProcessor(deps: SampleQueueDepthsDeps): Processor<"sampleQueueDepths"> {
  return async () => deps.queueDepths.sample(deps.now());
}
