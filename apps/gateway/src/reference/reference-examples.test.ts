import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildOpenApiDocument } from "../openapi";
import { EXAMPLE_STATUS, withReferenceExamples, type ErrorExample } from "./apply-examples";
import { DEFAULT_REFERENCE_EXAMPLES, type ReferenceExamples } from "./reference-examples";
import { referenceExamplesFromFile } from "./reference-examples.file";
import { referenceDocument } from "./reference-document";

interface Operation {
  description?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; example?: unknown }[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { content?: Record<string, { examples?: Record<string, ErrorExample> }> }>;
  [EXAMPLE_STATUS]?: number;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const limits = { bodyLimitBytes: 262_144, rateLimitPerMinute: 6000, signTimeoutMs: 5000 };
const built = buildOpenApiDocument();
const doc = withReferenceExamples(built, DEFAULT_REFERENCE_EXAMPLES, limits) as Doc;
const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })));

describe("the reference's examples", () => {
  it("give every operation an example of each required parameter and of its body", () => {
    const missing = operations.flatMap(({ name, op }) => [
      ...(op.parameters ?? []).filter((p) => p.required && p.example === undefined).map((p) => `${name}: ${p.in} ${p.name}`),
      ...(op.requestBody && op.requestBody.content["application/json"]?.example === undefined ? [`${name}: body`] : []),
    ]);
    expect(missing).toEqual([]);
    expect(operations.length).toBeGreaterThan(25);
  });

  it("give every documented error status an example body, and 400, 401, 403 and 404 the request that answers it", () => {
    const missing: string[] = [];
    for (const { name, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const examples = Object.values(response.content?.["application/json"]?.examples ?? {});
        if (examples.length === 0) missing.push(`${name} ${status}`);
        const runnable = ["400", "401", "404"].includes(status) || (status === "403" && name !== "POST /transact/call");
        if (runnable && !examples.some((e) => e["x-request"])) missing.push(`${name} ${status} request`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("name the install's records, with its ids in the messages", () => {
    const x: ReferenceExamples = { ...DEFAULT_REFERENCE_EXAMPLES, projectId: "11111111-2222-4333-8444-555555555555", confirmedTransactionId: "99999999-8888-4777-8666-555555555555" };
    const mine = withReferenceExamples(built, x, limits) as Doc;
    const speedUp = mine.paths["/transact/project/{projectId}/transactions/{transactionId}/speedUp"]!.post!;
    expect(speedUp.parameters!.map((p) => p.example)).toEqual([x.projectId, x.confirmedTransactionId]);
    expect(speedUp[EXAMPLE_STATUS]).toBe(409);
    expect(speedUp.description).toMatch(/answers 409/);
    expect(speedUp.responses["409"]!.content!["application/json"]!.examples!.conflict!.value).toEqual({
      message: `Transaction ${x.confirmedTransactionId} is CONFIRMED: a final transaction cannot be sped up`,
    });
    const send = mine.paths["/transact/sendTransaction"]!.post!.requestBody!.content["application/json"]!.example;
    expect(send).toMatchObject({ projectId: x.projectId, functionSignature: "function setOrder((uint256 id, address owner, uint8[] flags) order)", args: { order: { flags: [1, 2, 3] } } });
    expect(send).not.toHaveProperty("requestId");
    // The document built once is not changed by a copy's examples.
    expect(JSON.stringify(built)).not.toContain(x.projectId);
  });
});

describe("REFERENCE_EXAMPLES_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "reference-examples-"));
  const file = join(dir, "reference-examples.json");
  const logger = () => {
    const warnings: unknown[] = [];
    return { warnings, warn: (fields: unknown) => void warnings.push(fields) };
  };

  it("is read when asked for, kept while its modification time is the same, and read again once it changes", () => {
    const first = { ...DEFAULT_REFERENCE_EXAMPLES, projectId: "11111111-2222-4333-8444-555555555555" };
    writeFileSync(file, JSON.stringify(first));
    utimesSync(file, 1000, 1000);
    const log = logger();
    const examples = referenceExamplesFromFile({ file, logger: log });
    const document = referenceDocument(built, examples, limits);
    expect(examples()).toEqual(first);
    const served = document();
    expect(JSON.stringify(served)).toContain(first.projectId);

    writeFileSync(file, JSON.stringify({ ...first, projectId: "22222222-2222-4333-8444-555555555555" }));
    utimesSync(file, 1000, 1000);
    expect(document()).toBe(served);
    utimesSync(file, 2000, 2000);
    expect(JSON.stringify(document())).toContain("22222222-2222-4333-8444-555555555555");
    expect(log.warnings).toEqual([]);
  });

  it("gives the built-in values and one warning when missing or invalid, never an error", () => {
    const log = logger();
    const missing = referenceExamplesFromFile({ file: join(dir, "none.json"), logger: log });
    expect(missing()).toBe(DEFAULT_REFERENCE_EXAMPLES);
    expect(missing()).toBe(DEFAULT_REFERENCE_EXAMPLES);
    expect(log.warnings).toHaveLength(1);

    writeFileSync(file, JSON.stringify({ ...DEFAULT_REFERENCE_EXAMPLES, walletAddress: "0x12" }));
    utimesSync(file, 3000, 3000);
    const invalid = referenceExamplesFromFile({ file, logger: log });
    expect(invalid()).toBe(DEFAULT_REFERENCE_EXAMPLES);
    expect(log.warnings[1]).toMatchObject({ field: "walletAddress" });
    expect(referenceExamplesFromFile({ file: undefined, logger: log })()).toBe(DEFAULT_REFERENCE_EXAMPLES);
    expect(log.warnings).toHaveLength(2);
  });
});
