import { withReferenceExamples, type ExampleLimits } from "./apply-examples";
import type { ReferenceExamples } from "./reference-examples";

/**
 * The document as served: `document` (built once) with the examples of the records `examples()`
 * names now, rebuilt only when those change.
 */
export function referenceDocument(document: object, examples: () => ReferenceExamples, limits: ExampleLimits): () => object {
  let last: { examples: ReferenceExamples; document: object } | undefined;
  return () => {
    const current = examples();
    if (last?.examples !== current) last = { examples: current, document: withReferenceExamples(document, current, limits) };
    return last.document;
  };
}
