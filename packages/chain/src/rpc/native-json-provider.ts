import http from "node:http";
import https from "node:https";
import { FetchRequest, JsonRpcProvider, makeError, type JsonRpcApiProviderOptions, type JsonRpcPayload, type JsonRpcResult, type Network } from "ethers";

/** Keep-alive connections to the node, shared by this process's providers. */
const agents = { "http:": new http.Agent({ keepAlive: true, maxSockets: 32 }), "https:": new https.Agent({ keepAlive: true, maxSockets: 32 }) };

/**
 * The largest answer read from a node. Far above any real one (a block's receipts on a busy chain
 * are a few MiB); an endpoint that sends more (broken, or hostile) would otherwise fill the
 * worker's memory and end it, and its jobs would do the same to the next replica.
 */
export const MAX_RPC_RESPONSE_BYTES = 64 * 1024 * 1024;

/** One POST; resolves with the status and the body as text. */
function post(url: URL, body: string, timeoutMs: number, maxBytes = MAX_RPC_RESPONSE_BYTES): Promise<{ status: number; text: string }> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "POST",
        agent: agents[url.protocol as keyof typeof agents],
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) request.destroy(new Error(`answer larger than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    // The socket's idle time-out; the whole request is bounded by the timer below.
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: "TimeoutError" })), timeoutMs);
    request.on("close", () => clearTimeout(timer));
    request.on("timeout", () => request.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: "TimeoutError" })));
    request.on("error", reject);
    request.end(body);
  });
}

/** How long a URL that failed is passed over before it is tried first again. */
const RETRY_PRIMARY_AFTER_MS = 60_000;

/** How long a URL's answer to eth_chainId is trusted before it is asked again. */
export const CHAIN_CHECK_EVERY_MS = 60_000;

const CHAIN_ID_REQUEST = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "eth_chainId", params: [] });

/** Told when a URL answers for another chain than the provider's (it is then not used). */
export type WrongChainListener = (host: string, servedChainId: bigint, expectedChainId: bigint) => void;

interface ChainCheck {
  /** When the URL last answered eth_chainId; -Infinity: never (or to be asked afresh). */
  at: number;
  ok: boolean;
  pending?: Promise<boolean>;
}

/**
 * A JSON-RPC error that is the provider's, not the call's: limit exceeded (-32005, the code
 * hosted RPCs use for rate limits), or their wording of a rate limit or overload. A revert, a
 * refused transaction or a bad parameter is the node's answer to the call and is not.
 */
const PROVIDER_FAULT = /rate limit|too many requests|request limit|capacity|overloaded|try again later/i;
function isProviderFault(result: JsonRpcResult): boolean {
  const error = (result as { error?: { code?: unknown; message?: unknown } }).error;
  if (!error) return false;
  return error.code === -32005 || (typeof error.message === "string" && PROVIDER_FAULT.test(error.message));
}

/**
 * ethers' JsonRpcProvider with its transport replaced by Node's http client over keep-alive
 * connections: ethers decodes every response body with its own JavaScript UTF-8 decoder, which
 * cost a tenth of a transaction worker's CPU on batched answers and block receipts, and Node's
 * fetch cost another tenth per request (docs/benchmarks-history.md); here Node parses the JSON natively.
 * Everything else (batching, error mapping) stays ethers'. A non-2xx answer and a time-out throw
 * ethers' SERVER_ERROR and TIMEOUT, as its own transport does.
 *
 * Several URLs (a chain's `--rpc-url`s, in order): a request the first cannot carry (no
 * connection, a time-out, a non-2xx answer) goes to the next, and so on; the one that answered is
 * used from then on. A minute after the first failed, one call in the background asks whether it
 * answers again, and requests go back to it once it does. So is an answer
 * in which the provider refused every call itself (a rate limit, -32005). Any other JSON-RPC error
 * (a revert, a refused transaction) is the node's word, not a failure of the URL: it is not tried
 * elsewhere.
 *
 * Every URL is asked for its chain id (eth_chainId) before its first use and again once a minute;
 * one that answers for another chain is not used (its requests go to the next URL, or fail as
 * transient faults): a URL re-pointed at another network, or a fallback of the wrong one, would
 * otherwise answer for this chain, with nonces and receipts of another (a mined transaction then
 * looks dropped, its nonce used by someone else).
 */
export class NativeJsonRpcProvider extends JsonRpcProvider {
  private readonly targets: URL[];
  private readonly chainChecks: ChainCheck[];
  private readonly expectedChainId: bigint;
  /** The URL requests go to first. */
  private current = 0;
  private primaryFailedAt = 0;

  constructor(
    url: string | readonly string[],
    private readonly timeoutMs: number,
    network: Network,
    options: JsonRpcApiProviderOptions,
    private readonly now: () => number = Date.now,
    private readonly onWrongChain: WrongChainListener = () => undefined,
  ) {
    const urls = typeof url === "string" ? [url] : [...url];
    if (urls.length === 0) throw new Error("NativeJsonRpcProvider needs at least one URL");
    super(urls[0], network, options);
    this.targets = urls.map((u) => new URL(u));
    this.chainChecks = urls.map(() => ({ at: -Infinity, ok: false }));
    this.expectedChainId = network.chainId;
  }

  /**
   * Whether the URL at `index` serves this provider's chain: asked at first use and once a minute
   * after, one call shared by the requests that wait for it. A transport fault or a provider's
   * refusal of the question throws (the URL failed; asked again next time).
   */
  private servesChain(index: number): Promise<boolean> {
    const check = this.chainChecks[index]!;
    if (check.pending) return check.pending;
    if (this.now() - check.at < CHAIN_CHECK_EVERY_MS) return Promise.resolve(check.ok);
    const target = this.targets[index]!;
    check.pending = this.post(target, CHAIN_ID_REQUEST)
      .then((answer) => {
        const { result, error } = (answer[0] ?? {}) as { result?: unknown; error?: { message?: unknown } };
        if (typeof result !== "string" || !/^0x[0-9a-f]{1,64}$/i.test(result)) {
          // A refusal (a rate limit) keeps the provider's words: they say why.
          const why = typeof error?.message === "string" ? `: ${error.message.slice(0, 200)}` : "";
          throw makeError(`eth_chainId was not answered by ${target.host}${why}`, "SERVER_ERROR", { request: new FetchRequest(target.href) });
        }
        const served = BigInt(result);
        Object.assign(check, { at: this.now(), ok: served === this.expectedChainId });
        if (!check.ok) this.onWrongChain(target.host, served, this.expectedChainId);
        return check.ok;
      })
      .finally(() => (check.pending = undefined));
    return check.pending;
  }

  /** The URL requests go to now (for logs and tests). */
  get activeUrl(): string {
    return this.targets[this.current]!.href;
  }

  /**
   * Whether the first URL answers again, asked with one cheap call in the background: the requests
   * meanwhile keep going to the URL that answers, instead of each waiting out the first's time-out.
   */
  private probing = false;
  /** Whether that background call is out (for tests: its outcome is known once it is not). */
  get probingPrimary(): boolean {
    return this.probing;
  }
  private probePrimary(): void {
    this.probing = true;
    this.chainChecks[0]!.at = -Infinity; // asked afresh
    this.servesChain(0)
      .then(
        (ok) => {
          if (ok) this.current = 0;
          else this.primaryFailedAt = this.now();
        },
        () => (this.primaryFailedAt = this.now()),
      )
      .finally(() => (this.probing = false));
  }

  /** Error answers ({id, error}) come back in the list too; ethers maps them to errors per call. */
  override async _send(payload: JsonRpcPayload | JsonRpcPayload[]): Promise<JsonRpcResult[]> {
    if (this.current !== 0 && !this.probing && this.now() - this.primaryFailedAt >= RETRY_PRIMARY_AFTER_MS) this.probePrimary();
    const body = JSON.stringify(payload);
    const first = this.current;
    let failure: unknown;
    let refused: JsonRpcResult[] | undefined;
    for (let i = 0; i < this.targets.length; i++) {
      const index = (first + i) % this.targets.length;
      try {
        if (!(await this.servesChain(index))) {
          failure ??= makeError(`the RPC URL at ${this.targets[index]!.host} answers for another chain than ${this.expectedChainId}; it is not used`, "SERVER_ERROR", {
            request: new FetchRequest(this.targets[index]!.href),
          });
          if (index === 0) this.primaryFailedAt = this.now();
          continue;
        }
        const answer = await this.post(this.targets[index]!, body);
        // Every call refused by the provider itself (rate limit, overload): the URL did not carry
        // the request, so the next one is asked; if none can, the calls get this answer.
        if (this.targets.length > 1 && answer.length > 0 && answer.every(isProviderFault)) {
          refused ??= answer;
          if (index === 0) this.primaryFailedAt = this.now();
          continue;
        }
        // Failed over: the URL that answered is used from now on, unless something else moved the
        // choice meanwhile (the probe found the first answering again while this request was out).
        if (index !== first && this.current === first) this.current = index;
        return answer;
      } catch (e) {
        failure ??= e;
        if (index === 0) this.primaryFailedAt = this.now();
      }
    }
    if (refused) return refused;
    throw failure;
  }

  private async post(target: URL, body: string): Promise<JsonRpcResult[]> {
    let answer: { status: number; text: string };
    try {
      answer = await post(target, body, this.timeoutMs);
    } catch (e) {
      const error = e as { name?: unknown; message?: unknown } | null;
      throw error?.name === "TimeoutError"
        ? makeError(`JSON-RPC request timed out after ${this.timeoutMs} ms`, "TIMEOUT", { operation: "request", reason: "timeout" })
        : makeError(`JSON-RPC request failed: ${String(error?.message ?? e)}`, "SERVER_ERROR", { request: new FetchRequest(target.href), info: { cause: e } });
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw makeError(`server response ${answer.status}`, "SERVER_ERROR", {
        request: new FetchRequest(target.href),
        info: { status: answer.status, body: answer.text.slice(0, 200) },
      });
    }
    const parsed = JSON.parse(answer.text) as JsonRpcResult | JsonRpcResult[];
    return Array.isArray(parsed) ? parsed : [parsed];
  }
}
