import { nonPublicRange } from "./address-policy";
import { hostAddress, parseHttpUrl } from "./http-url";

export const MAX_CALLBACK_URL_LENGTH = 2048;

export interface CallbackUrlRules {
  /** https only, and no host that is plainly not public. */
  production: boolean;
}

/**
 * Registration-time check of a callback URL: null when acceptable, otherwise a message for the
 * caller naming the problem. It catches what can be seen in the text; a host name's addresses can
 * change at any time, so the safe HTTP client checks the resolved address on every connection.
 */
export function checkCallbackUrl(raw: string, { production }: CallbackUrlRules): string | null {
  if (raw.length > MAX_CALLBACK_URL_LENGTH) {
    return `callbackURL is ${raw.length} characters long; at most ${MAX_CALLBACK_URL_LENGTH} are allowed`;
  }
  // The URL parser silently drops tabs and newlines and trims spaces: the URL stored and shown
  // back would not be the one delivered to.
  if (/[\u0000-\u0020\u007f]/.test(raw)) return "callbackURL must not contain spaces or control characters";
  const parsed = parseHttpUrl(raw);
  if (!parsed.url) return `callbackURL ${parsed.problem}`;
  if (!production) return null;
  if (parsed.url.protocol !== "https:") return "callbackURL must use https";
  const literal = hostAddress(parsed.url);
  const range = literal === null ? null : nonPublicRange(literal);
  if (range !== null) return `callbackURL must not point to ${literal} (${range}); only public addresses are allowed`;
  // RFC 6761: these names always mean this machine, whatever a resolver says.
  const host = parsed.url.hostname.replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return "callbackURL must not point to localhost";
  return null;
}
