import { EXAMPLE_METHODS, isReference, responsesOf, type OpenAPIObject, type OperationObject } from "./openapi-objects";
import { operationExamples, type ExampleRequest, type OperationExamples } from "./operation-examples";
import { OTHER_PROJECT_ID, type ReferenceExamples } from "./reference-examples";

/** The settings the gateway's own error messages name. */
export interface ExampleLimits {
  bodyLimitBytes: number;
  rateLimitPerMinute: number;
  signTimeoutMs: number;
}

/**
 * An error response's example. `x-request`, when present, is the request that answers it on the
 * install the examples name (`apiKey: false`: sent without the Authorization header); the quick
 * start's test and `npm run reference:check` send it.
 */
export interface ErrorExample {
  summary: string;
  value: unknown;
  "x-request"?: ExampleRequest & { apiKey?: false };
}

/** Marks the status an operation's example answers when that is not a 2xx (speedUp on the quick start). */
export const EXAMPLE_STATUS = "x-example-status";

/** A copy of `document` whose every operation carries the examples built from `x`. */
export function withReferenceExamples<T extends object>(document: T, x: ReferenceExamples, limits: ExampleLimits): T {
  const copy = structuredClone(document) as T & OpenAPIObject;
  const table = operationExamples(x, limits);
  for (const [path, item] of Object.entries(copy.paths ?? {})) {
    for (const method of EXAMPLE_METHODS) {
      const operation = item[method];
      const examples = table[`${method} ${path}`];
      if (operation && examples) applyTo(operation, examples, limits);
    }
  }
  return copy;
}

function applyTo(operation: OperationObject, examples: OperationExamples, limits: ExampleLimits): void {
  const { request } = examples;
  for (const parameter of operation.parameters ?? []) {
    if (isReference(parameter)) continue;
    const value = (parameter.in === "path" ? request.params : parameter.in === "query" ? request.query : undefined)?.[parameter.name];
    // The document shows exactly the request that is sent: no schema's example beside it.
    if (value !== undefined) parameter.example = value;
    else delete parameter.example;
  }
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content["application/json"] : undefined;
  if (body && request.body !== undefined) body.example = request.body;
  if (examples.answers) {
    operation[EXAMPLE_STATUS] = examples.answers.status;
    operation.description = [operation.description, examples.answers.why].filter(Boolean).join("\n\n");
  }
  const secured = (operation.security ?? []).length > 0;
  for (const [status, response] of responsesOf(operation)) {
    const content = isReference(response) ? undefined : response.content?.["application/json"];
    const example = Number(status) >= 400 ? errorExample(Number(status), examples, secured, limits) : undefined;
    if (content && example) content.examples = { [exampleName(Number(status))]: example };
  }
}

function errorExample(status: number, ex: OperationExamples, secured: boolean, limits: ExampleLimits): ErrorExample | undefined {
  switch (status) {
    case 400:
      return ex.badRequest && { summary: ex.badRequest.summary, value: { message: ex.badRequest.message }, "x-request": requestOf(ex.badRequest) };
    case 401:
      return secured ? { summary: "No API key", value: { message: "Missing Authorization header; send `Authorization: Bearer <API key>`" }, "x-request": { ...ex.request, apiKey: false } } : undefined;
    case 403: {
      const other = otherProject(ex.request);
      const value = { message: `This API key does not belong to project ${OTHER_PROJECT_ID}` };
      return other ? { summary: "Another project's id", value, "x-request": other } : { summary: "Another project's id", value };
    }
    case 404:
      return ex.notFound && { summary: "No such record in the project", value: { message: ex.notFound.message }, "x-request": requestOf(ex.notFound) };
    case 413:
      return { summary: "A body over BODY_LIMIT_BYTES", value: { message: `Request body is larger than the ${limits.bodyLimitBytes} byte limit` } };
    case 415:
      return { summary: "A body in another charset", value: { message: "Only UTF-8 JSON bodies are accepted" } };
    case 429:
      return { summary: "Over RATE_LIMIT_PER_MINUTE", value: { message: `Rate limit of ${limits.rateLimitPerMinute} requests per minute for this API key exceeded; retry after 60 s` } };
    default:
      return ex.errors?.[status] === undefined ? undefined : { summary: exampleName(status), value: ex.errors[status] };
  }
}

const NAMES: Record<number, string> = { 400: "badRequest", 401: "noApiKey", 403: "otherProject", 404: "notFound", 409: "conflict", 413: "tooLarge", 415: "notUtf8", 422: "invalidRequestId", 429: "rateLimited", 500: "internalError", 503: "unavailable" };
const exampleName = (status: number): string => NAMES[status] ?? `status${status}`;

const requestOf = ({ params, query, body }: ExampleRequest): ExampleRequest => ({ ...(params && { params }), ...(query && { query }), ...(body !== undefined && { body }) });

/** The request naming another project, where it names one (in its path or body). */
function otherProject(request: ExampleRequest): ExampleRequest | undefined {
  if (request.params?.projectId) return { ...request, params: { ...request.params, projectId: OTHER_PROJECT_ID } };
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body.projectId === "string") return { ...request, body: { ...body, projectId: OTHER_PROJECT_ID } };
  return undefined;
}
