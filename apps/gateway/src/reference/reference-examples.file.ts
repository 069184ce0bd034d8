import { readFileSync, statSync } from "node:fs";
import { toError, type Logger } from "@relay/core";
import { DEFAULT_REFERENCE_EXAMPLES, referenceExamplesSchema, type ReferenceExamples } from "./reference-examples";

export interface ReferenceExamplesFileDeps {
  /** REFERENCE_EXAMPLES_FILE; unset: the built-in values. */
  file: string | undefined;
  logger: Pick<Logger, "warn">;
}

/**
 * The records the examples name, read from `file` when asked for and kept while its modification
 * time stays the same (the quick start writes it after the gateway started). A missing or invalid
 * file gives the built-in values and one warning per change of the file, never an error.
 */
export function referenceExamplesFromFile(deps: ReferenceExamplesFileDeps): () => ReferenceExamples {
  let seen: { mtimeMs: number; examples: ReferenceExamples } | undefined;
  return () => {
    const { file } = deps;
    if (!file) return DEFAULT_REFERENCE_EXAMPLES;
    let mtimeMs = -1;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      // missing: read below fails and says so, once
    }
    if (seen?.mtimeMs === mtimeMs) return seen.examples;
    seen = { mtimeMs, examples: read(file, deps.logger) };
    return seen.examples;
  };
}

function read(file: string, logger: Pick<Logger, "warn">): ReferenceExamples {
  try {
    const parsed = referenceExamplesSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    logger.warn({ file, field: issue?.path.join("."), problem: issue?.message }, "REFERENCE_EXAMPLES_FILE is not valid; the reference shows built-in example values");
  } catch (e) {
    logger.warn({ file, err: toError(e).message }, "REFERENCE_EXAMPLES_FILE cannot be read; the reference shows built-in example values");
  }
  return DEFAULT_REFERENCE_EXAMPLES;
}
