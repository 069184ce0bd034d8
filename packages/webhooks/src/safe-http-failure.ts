import { toError } from "@relay/core";
import { RefusedAddressError } from "./guarded-lookup";

/**
 * Why a delivery got no HTTP response. The worker records it with responseStatus 0; the kind is
 * stable for stats and alerts, the message is for the person reading them.
 */
export type SafeHttpFailureKind =
  | "bad-url"
  | "refused-address"
  | "dns-failed"
  | "connect-failed"
  | "tls-failed"
  | "timeout"
  | "response-failed";

export interface SafeHttpFailure {
  status: 0;
  error: SafeHttpFailureKind;
  message: string;
  durationMs: number;
}

/** How far a request got; an error means something different in each. */
export type RequestPhase = "connecting" | "tls" | "waiting" | "reading";

// Resolver errors from getaddrinfo and c-ares: the name did not give an address.
const DNS_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME", "ENODATA", "ESERVFAIL", "ETIMEOUT"]);

export function classifyFailure(thrown: unknown, phase: RequestPhase): { error: SafeHttpFailureKind; message: string } {
  const e = toError(thrown);
  const message = describe(e);
  if (e instanceof RefusedAddressError) return { error: "refused-address", message };
  const code = (e as NodeJS.ErrnoException).code;
  if (phase === "connecting") return { error: code && DNS_CODES.has(code) ? "dns-failed" : "connect-failed", message };
  if (phase === "tls") return { error: "tls-failed", message };
  return { error: "response-failed", message };
}

function describe(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  // Node's happy-eyeballs connect reports one AggregateError, often with an empty message, for
  // all the addresses it tried.
  const inner = e instanceof AggregateError ? e.errors.map((x) => toError(x).message).join("; ") : "";
  const text = [e.message, inner].filter(Boolean).join(": ") || e.name;
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}
