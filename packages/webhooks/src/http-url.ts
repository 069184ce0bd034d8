import { isIP } from "node:net";

/** A URL a webhook may be sent to, or what is wrong with it. Shared by registration and delivery. */
export type ParsedHttpUrl = { url: URL; problem?: undefined } | { url?: undefined; problem: string };

export function parseHttpUrl(raw: string): ParsedHttpUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: "is not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { problem: `must use http or https, not ${url.protocol.slice(0, -1).slice(0, 20)}` };
  }
  // Credentials in a callback URL would sit in our database and logs in clear; a receiver that
  // needs to authenticate us has the webhook signature for that.
  if (url.username !== "" || url.password !== "") return { problem: "must not contain a user name or password" };
  return { url };
}

/** The host as an IP address (IPv6 without brackets) when the URL names one, else null. */
export function hostAddress(url: URL): string | null {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}
