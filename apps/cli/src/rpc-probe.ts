import { AppError, toError } from "@relay/core";

/** Where an RPC URL points, without the path or query that often carry a provider's API key. */
export function describeRpcUrl(url: string): string {
  try {
    const { protocol, host, pathname, search } = new URL(url);
    return `${protocol}//${host}${pathname.length > 1 || search ? "/…" : ""}`;
  } catch {
    return "(invalid URL)";
  }
}

/**
 * Asks an endpoint for `eth_chainId` with a raw JSON-RPC call. A raw call (not an ethers
 * provider) so that nothing retries, caches or guesses the network behind our back, and the
 * time-out is ours.
 */
export async function fetchChainId(rpcUrl: string, timeoutMs = 5000): Promise<bigint> {
  const where = describeRpcUrl(rpcUrl);
  const { url, authorization } = withoutCredentials(rpcUrl);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    const error = toError(e);
    const reason = error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (toError(error.cause ?? error).message || error.message);
    // Not the error itself as the cause: its message may quote the URL, which the CLI prints.
    throw new AppError("UNAVAILABLE", `RPC ${where} did not answer eth_chainId (${scrub(reason, [rpcUrl, url])}): check the URL, or pass --no-verify to skip the check`);
  }
  const body: unknown = await response.json().catch(() => undefined);
  const result = typeof body === "object" && body !== null ? (body as { result?: unknown }).result : undefined;
  if (!response.ok || typeof result !== "string" || !/^0x[0-9a-f]+$/i.test(result)) {
    throw new AppError("UNAVAILABLE", `RPC ${where} gave no valid eth_chainId answer (HTTP ${response.status}): is it an Ethereum JSON-RPC endpoint?`);
  }
  return BigInt(result);
}

/**
 * `fetch` refuses a URL with credentials (`https://user:pass@host/…`), and its error quotes the
 * whole URL; the workers' HTTP client sends them as Basic authentication, so the probe does too.
 */
function withoutCredentials(rpcUrl: string): { url: string; authorization?: string } {
  let parsed: URL;
  try {
    parsed = new URL(rpcUrl);
  } catch {
    return { url: rpcUrl };
  }
  if (!parsed.username && !parsed.password) return { url: rpcUrl };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.toString(), authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** `text` without any of `urls` in it (each shown as describeRpcUrl shows it). */
const scrub = (text: string, urls: string[]): string => urls.reduce((out, url) => out.split(url).join(describeRpcUrl(url)), text);
