import type { z } from "zod";
import { AppError, type ErrorCode } from "@relay/core";
import { describeIssues } from "../http-schemas";

/** Parses a part of the request with a zod schema; failures become the route's own error code. */
export function parseOr<S extends z.ZodType>(schema: S, value: unknown, code: ErrorCode = "BAD_REQUEST"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError(code, describeIssues(result.error, value));
  return result.data;
}

/** The body must be a JSON object; anything else (no body, wrong Content-Type) says so plainly. */
export function requireJsonObject(body: unknown, code: ErrorCode = "BAD_REQUEST"): Record<string, unknown> {
  if (body === undefined) {
    throw new AppError(code, "Request body must be a JSON object sent with Content-Type: application/json");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new AppError(code, "Request body must be a JSON object");
  }
  return body as Record<string, unknown>;
}
