/**
 * Sends every example of an OpenAPI document (the gateway's /openapi.json) to the relay it
 * describes, in the document's order: each operation's request, then each error example that
 * names its request (`x-request`: the bad request, no API key, another project, an unknown id).
 * The quick start's examples name its own records, so against a fresh `npm start` each must
 * answer as documented: a 2xx (or the operation's `x-example-status`), and an error example its
 * status with exactly its `message`. Some examples use their record up (cancel, delete, retire):
 * run it once per start.
 */
import {
  EXAMPLE_METHODS,
  isReference,
  responsesOf,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type ReferenceObject,
  type ResponseObject,
} from "../../apps/gateway/src/reference/openapi-objects";

export interface ExampleRequest {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  apiKey?: false;
}

export interface ExampleOutcome {
  method: string;
  path: string;
  /** "example", or the error example's name (badRequest, noApiKey, otherProject, notFound). */
  example: string;
  expected: string;
  status: number;
  message: string | undefined;
  ok: boolean;
}

/** The document as GET /openapi.json serves it. */
export type OpenApiDocument = OpenAPIObject;

export async function runReferenceExamples(options: { baseUrl: string; apiKey: string; document: OpenApiDocument; fetch?: typeof fetch }): Promise<ExampleOutcome[]> {
  const send = options.fetch ?? fetch;
  const outcomes: ExampleOutcome[] = [];
  for (const [path, item] of Object.entries(options.document.paths ?? {})) {
    for (const method of EXAMPLE_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const call = async (request: ExampleRequest): Promise<{ status: number; message: string | undefined }> => {
        const url = new URL(options.baseUrl.replace(/\/+$/, "") + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(request.params?.[name] ?? `{${name}}`))));
        for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, String(value));
        const headers: Record<string, string> = request.apiKey === false ? {} : { authorization: `Bearer ${options.apiKey}` };
        if (request.body !== undefined) headers["content-type"] = "application/json";
        const response = await send(url, { method: method.toUpperCase(), headers, ...(request.body !== undefined && { body: JSON.stringify(request.body) }) });
        const text = await response.text();
        let message: string | undefined;
        try {
          const parsed = JSON.parse(text) as { message?: unknown };
          message = typeof parsed.message === "string" ? parsed.message : undefined;
        } catch {
          message = text.slice(0, 200);
        }
        return { status: response.status, message };
      };

      const request = exampleRequest(operation);
      const missing = parametersOf(operation).filter((p) => p.required && p.example === undefined).map((p) => p.name);
      const expectedStatus = operation["x-example-status"] as number | undefined;
      const expected = expectedStatus ? `${expectedStatus} ${messageOf(responseAt(operation, expectedStatus)) ?? ""}`.trim() : "2xx";
      if (missing.length > 0 || (operation.requestBody && request.body === undefined)) {
        outcomes.push({ method, path, example: "example", expected, status: 0, message: `no example for ${missing.join(", ") || "the body"}`, ok: false });
      } else {
        const answer = await call(request);
        const ok = expectedStatus ? answer.status === expectedStatus && answer.message === messageOf(responseAt(operation, expectedStatus)) : answer.status >= 200 && answer.status < 300;
        outcomes.push({ method, path, example: "example", expected, ...answer, ok });
      }

      for (const [status, response] of responsesOf(operation)) {
        for (const [name, example] of Object.entries(examplesOf(response))) {
          if (isReference(example)) continue;
          const errorRequest = example["x-request"] as ExampleRequest | undefined;
          if (!errorRequest) continue;
          const message = (example.value as { message?: string } | undefined)?.message;
          const answer = await call(errorRequest);
          outcomes.push({ method, path, example: name, expected: `${status} ${message ?? ""}`.trim(), ...answer, ok: answer.status === Number(status) && answer.message === message });
        }
      }
    }
  }
  return outcomes;
}

/** The request an operation's examples make up: its parameters' examples and its body's. */
function exampleRequest(operation: OperationObject): ExampleRequest {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of parametersOf(operation)) {
    if (p.example === undefined) continue;
    if (p.in === "path") params[p.name] = String(p.example);
    if (p.in === "query") query[p.name] = String(p.example);
  }
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content?.["application/json"]?.example : undefined;
  return { params, query, body };
}

const parametersOf = (operation: OperationObject): ParameterObject[] => (operation.parameters ?? []).flatMap((p) => (isReference(p) ? [] : [p]));

const responseAt = (operation: OperationObject, status: number) => operation.responses?.[status] as ResponseObject | ReferenceObject | undefined;

const examplesOf = (response: ResponseObject | ReferenceObject | undefined) =>
  response && !isReference(response) ? (response.content?.["application/json"]?.examples ?? {}) : {};

function messageOf(response: ResponseObject | ReferenceObject | undefined): string | undefined {
  const first = Object.values(examplesOf(response))[0];
  return (first && !isReference(first) ? (first.value as { message?: string } | undefined) : undefined)?.message;
}

/** The outcomes as a table a person reads: one line per request, failures marked. */
export function formatOutcomes(outcomes: readonly ExampleOutcome[]): string {
  const rows = outcomes.map((o) => [o.ok ? "ok" : "FAIL", o.method.toUpperCase(), o.path, o.example, String(o.status), o.ok ? "" : `expected ${o.expected}; got ${o.message ?? ""}`]);
  const widths = [4, 6, 0, 0, 3].map((min, i) => Math.max(min, ...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell)).join("  ").trimEnd());
  const failed = outcomes.filter((o) => !o.ok).length;
  return [...lines, "", `${outcomes.length - failed} of ${outcomes.length} answered as documented${failed ? `; ${failed} did not` : ""}`].join("\n");
}
