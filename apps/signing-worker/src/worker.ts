import type { Worker } from "bullmq";
import { createSignatureRepository, type Database } from "@relay/db";
import type { Signer } from "@relay/custody";
import { createTypedWorker, type Redis } from "@relay/queue";
import type { Logger } from "@relay/core";
import { createPersonalSignProcessor } from "./processors/personal-sign.processor";

export interface SigningWorkerDeps {
  db: Pick<Database, "signature">;
  redis: Redis;
  signer: Signer;
  logger: Logger;
  queuePrefix: string;
  concurrency: number;
}

/** The signing worker: the personal-sign queue's consumer. */
export function createSigningWorker(deps: SigningWorkerDeps): Worker {
  const processor = createPersonalSignProcessor({ signatures: createSignatureRepository(deps.db), signer: deps.signer });
  const worker = createTypedWorker("personalSign", processor, {
    connection: deps.redis,
    prefix: deps.queuePrefix,
    concurrency: deps.concurrency,
    logger: deps.logger,
  });
  worker.on("error", (err) => deps.logger.error({ err }, "signing worker error"));
  return worker;
}
