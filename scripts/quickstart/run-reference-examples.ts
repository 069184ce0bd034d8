/**
 * Sends every example of an OpenAPI document (the gateway's /openapi.json) to the relay it
 * describes, in the document's order: each operation's request, then each error example that
 * names its request (`x-request`: the bad request, no API key, another project, an unknown id).
 * The quick start's examples name its own records, so against a fresh `npm start` each must
 * answer as documented: a 2xx (or the operation's `x-example-status`), and an error example its
 * status with exactly its `message`. Some examples use their record up (cancel, delete, retire):
 * run it once per start.
 */

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

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { examples?: Record<string, { value?: unknown; "x-request"?: ExampleRequest }> }> }>;
  "x-example-status"?: number;
}
export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
}

const METHODS = ["get", "put", "post", "delete", "patch"] as const;

export async function runReferenceExamples(options: { baseUrl: string; apiKey: string; document: OpenApiDocument; fetch?: typeof fetch }): Promise<ExampleOutcome[]> {
  const send = options.fetch ?? fetch;
  const outcomes: ExampleOutcome[] = [];
  for (const [path, item] of Object.entries(options.document.paths ?? {})) {
    for (const method of METHODS) {
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
      const missing = (operation.parameters ?? []).filter((p) => p.required && p.example === undefined).map((p) => p.name);
      const expectedStatus = operation["x-example-status"];
      const expected = expectedStatus ? `${expectedStatus} ${messageOf(operation.responses?.[expectedStatus]) ?? ""}`.trim() : "2xx";
      if (missing.length > 0 || (operation.requestBody && request.body === undefined)) {
        outcomes.push({ method, path, example: "example", expected, status: 0, message: `no example for ${missing.join(", ") || "the body"}`, ok: false });
      } else {
        const answer = await call(request);
        const ok = expectedStatus ? answer.status === expectedStatus && answer.message === messageOf(operation.responses?.[expectedStatus]) : answer.status >= 200 && answer.status < 300;
        outcomes.push({ method, path, example: "example", expected, ...answer, ok });
      }

      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const [name, example] of Object.entries(response.content?.["application/json"]?.examples ?? {})) {
          const errorRequest = example["x-request"];
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
function exampleRequest(operation: Operation): ExampleRequest {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of operation.parameters ?? []) {
    if (p.example === undefined) continue;
    if (p.in === "path") params[p.name] = String(p.example);
    if (p.in === "query") query[p.name] = String(p.example);
  }
  return { params, query, body: operation.requestBody?.content?.["application/json"]?.example };
}

function messageOf(response: NonNullable<Operation["responses"]>[string] | undefined): string | undefined {
  const first = Object.values(response?.content?.["application/json"]?.examples ?? {})[0];
  return (first?.value as { message?: string } | undefined)?.message;
}

/** The outcomes as a table a person reads: one line per request, failures marked. */
export function formatOutcomes(outcomes: readonly ExampleOutcome[]): string {
  const rows = outcomes.map((o) => [o.ok ? "ok" : "FAIL", o.method.toUpperCase(), o.path, o.example, String(o.status), o.ok ? "" : `expected ${o.expected}; got ${o.message ?? ""}`]);
  const widths = [4, 6, 0, 0, 3].map((min, i) => Math.max(min, ...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell)).join("  ").trimEnd());
  const failed = outcomes.filter((o) => !o.ok).length;
  return [...lines, "", `${outcomes.length - failed} of ${outcomes.length} answered as documented${failed ? `; ${failed} did not` : ""}`].join("\n");
}
