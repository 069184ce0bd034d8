import { FetchRequest, JsonRpcProvider, makeError, type JsonRpcApiProviderOptions, type JsonRpcPayload, type JsonRpcResult, type Network } from "ethers";

/**
 * ethers' JsonRpcProvider with its transport replaced by Node's fetch: ethers decodes every
 * response body with its own JavaScript UTF-8 decoder, which cost a tenth of a transaction
 * worker's CPU on batched answers and block receipts (docs/benchmarks.md); Node parses the JSON
 * natively. Everything else (batching, error mapping, retries) stays ethers'. A non-2xx answer and
 * a time-out throw ethers' SERVER_ERROR and TIMEOUT, as its own transport does.
 */
export class NativeJsonRpcProvider extends JsonRpcProvider {
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
    network: Network,
    options: JsonRpcApiProviderOptions,
  ) {
    super(url, network, options);
  }

  /** Error answers ({id, error}) come back in the list too; ethers maps them to errors per call. */
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      // A DOMException (not an Error in every realm): by name.
      const name = (e as { name?: unknown } | null)?.name;
      const timedOut = name === "TimeoutError" || name === "AbortError";
      throw timedOut
        ? makeError(`JSON-RPC request timed out after ${this.timeoutMs} ms`, "TIMEOUT", { operation: "request", reason: "timeout" })
        : makeError(`JSON-RPC request failed: ${(e as { message?: unknown } | null)?.message ?? String(e)}`, "SERVER_ERROR", { request: new FetchRequest(this.url), info: { cause: e } });
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      throw makeError(`server response ${response.status} ${response.statusText}`, "SERVER_ERROR", {
        request: new FetchRequest(this.url),
        info: { status: response.status, body: text.slice(0, 200) },
      });
    }
    const body = (await response.json()) as JsonRpcResult | JsonRpcResult[];
    return Array.isArray(body) ? body : [body];
  }
}
