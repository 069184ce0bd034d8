/**
 * `npm run reference:check -- --url http://127.0.0.1:3000 --key <API key>`: sends every example of
 * the running relay's /openapi.json (run-reference-examples.ts) and prints what each answered.
 * Meant for a fresh `npm start`: some examples use up the records they name.
 */
import { parseArgs } from "node:util";
import { formatOutcomes, runReferenceExamples, type OpenApiDocument } from "./run-reference-examples";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: "string", default: "http://127.0.0.1:3000" }, key: { type: "string" } } });
  if (!values.key) throw new Error("--key <API key> is required (the quick start prints it)");
  const baseUrl = values.url.replace(/\/+$/, "");
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApiDocument;
  const outcomes = await runReferenceExamples({ baseUrl, apiKey: values.key, document });
  process.stdout.write(`${formatOutcomes(outcomes)}\n`);
  if (outcomes.some((o) => !o.ok)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`reference check failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
