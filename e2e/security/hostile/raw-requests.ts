import fc from "fast-check";

/**
 * Whole HTTP/1.1 requests as bytes, for what node:http will not send: broken request lines,
 * missing or doubled Host, lying or doubled Content-Length, chunked bodies with bad sizes, both
 * Transfer-Encoding and Content-Length, folded and colon-less header lines, bare LF line ends.
 */
export interface RawCase {
  bytes: string;
  description: string;
  /** The body is shorter than announced: the client stops sending (closes its side) instead. */
  truncated: boolean;
}

export function rawRequests(target: { projectId: string; apiKey: string; wallet: string }): fc.Arbitrary<RawCase> {
  const body = fc.constantFrom(JSON.stringify({ signerAddress: target.wallet, message: "raw" }), "{bad json", "", "x".repeat(3_000));
  const line = fc.constantFrom(
    `POST /wallet/project/${target.projectId}/personalSign HTTP/1.1`,
    "POST /transact/sendTransaction HTTP/1.1",
    "GET /health HTTP/1.1",
    "GET /health HTTP/1.0",
    "GET http://example.com/health HTTP/1.1",
    // Absolute form on the API: routed by its path, so authenticated by it too.
    `POST http://127.0.0.1/wallet/project/${target.projectId}/personalSign HTTP/1.1`,
    "POST HTTP://127.0.0.1/transact/sendTransaction HTTP/1.1",
    "GET /health HTTP/2.0",
    "GET /health HTTP/9.9",
    "G@T /health HTTP/1.1",
    "GET  /health HTTP/1.1",
    "GET /he alth HTTP/1.1",
    "GET /health",
    "GET /%zz HTTP/1.1",
    "\u0000GET / HTTP/1.1",
    "",
  );
  const framing = fc.constantFrom("length", "short-length", "negative-length", "word-length", "double-length", "huge-length", "chunked", "bad-chunk", "te-and-cl", "te-gzip", "none");
  const oddity = fc.constantFrom("none", "no-host", "two-hosts", "folded", "no-colon", "space-in-name", "lf-only", "expect-continue", "nul-in-value");
  return fc.record({ line, body, framing, oddity, auth: fc.boolean() }).map(({ line, body, framing, oddity, auth }) => {
    const headers: string[] = [];
    if (oddity !== "no-host") headers.push("Host: 127.0.0.1");
    if (oddity === "two-hosts") headers.push("Host: example.com");
    if (auth) headers.push(`Authorization: Bearer ${target.apiKey}`);
    headers.push("Content-Type: application/json", "Connection: close");
    if (oddity === "folded") headers.push("X-Folded: a", " b");
    if (oddity === "no-colon") headers.push("X-No-Colon");
    if (oddity === "space-in-name") headers.push("Bad Header: x");
    if (oddity === "expect-continue") headers.push("Expect: 100-continue");
    if (oddity === "nul-in-value") headers.push("X-Nul: a\u0000b");
    let payload = body;
    const length = Buffer.byteLength(body);
    switch (framing) {
      case "length":
        headers.push(`Content-Length: ${length}`);
        break;
      case "short-length":
        headers.push(`Content-Length: ${length + 10}`);
        break;
      case "negative-length":
        headers.push("Content-Length: -1");
        break;
      case "word-length":
        headers.push("Content-Length: abc");
        break;
      case "double-length":
        headers.push(`Content-Length: ${length}`, `Content-Length: ${length + 1}`);
        break;
      case "huge-length":
        headers.push("Content-Length: 99999999999999999999");
        break;
      case "chunked":
        headers.push("Transfer-Encoding: chunked");
        payload = length === 0 ? "0\r\n\r\n" : `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
        break;
      case "bad-chunk":
        headers.push("Transfer-Encoding: chunked");
        payload = `zz\r\n${body}\r\n0\r\n\r\n`;
        break;
      case "te-and-cl":
        headers.push("Transfer-Encoding: chunked", `Content-Length: ${length}`);
        payload = `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
        break;
      case "te-gzip":
        headers.push("Transfer-Encoding: gzip");
        break;
      case "none":
        break;
    }
    const eol = oddity === "lf-only" ? "\n" : "\r\n";
    return { bytes: `${line}${eol}${headers.join(eol)}${eol}${eol}${payload}`, truncated: framing === "short-length", description: `${JSON.stringify(line)} framing=${framing} oddity=${oddity} auth=${auth} body=${JSON.stringify(body.slice(0, 40))}` };
  });
}
