import fc from "fast-check";
import type { OutgoingHttpHeaders } from "node:http";
import {
  authorization,
  bodyText,
  encodeBody,
  extraHeaders,
  hostileString,
  hostileValue,
  idSegment,
  mutatedObject,
  transport,
  type Auth,
  type AuthKind,
} from "./arbitraries";

/** What the hostile-input test sets up: two projects with records, and a configured chain. */
export interface World {
  chainId: number;
  own: { projectId: string; apiKey: string; wallet: string; signatureIds: string[]; transactionIds: string[]; callbackIds: string[] };
  other: { projectId: string; apiKey: string; wallet: string; signatureIds: string[]; transactionIds: string[]; callbackIds: string[] };
}

export interface Case {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body?: Buffer;
  auth: AuthKind | "n/a";
}

export interface Endpoint {
  name: string;
  runs: number;
  /** Statuses the contract, DESIGN.md and docs/architecture.md allow this endpoint to answer. */
  allowed: number[];
  /** Its entry in /openapi.json, for API routes. */
  documented?: { method: string; path: string };
  cases: fc.Arbitrary<Case>;
}

/** Statuses any endpoint may answer for reasons of transport, not of the endpoint itself. */
const TRANSPORT = [413, 415, 431];
const AUTHENTICATED = [401, 403, 429];

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const badAddress = fc.oneof(
  fc.constantFrom("0x", "0x12", "0xZZ", "70997970C51812dc3A010C7d01b50e0d17dc79C8", "0x70997970c51812dc3a010c7d01b50e0d17dc79c8aa", "vitalik.eth", "0x70997970C51812DC3A010C7D01B50E0D17DC79c8"),
  hostileString,
);
const badUuid = fc.oneof(
  fc.constantFrom("", "123", "not-a-uuid", "00000000-0000-0000-0000-000000000000", "{00000000-0000-4000-8000-000000000000}", "00000000000040008000000000000000", "g0000000-0000-4000-8000-000000000000"),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => ` ${u}`),
  hostileString,
);

/** The signer address in the forms clients send it: checksummed, lower case, upper-case hex. */
const signerForms = (wallet: string) => fc.constantFrom(wallet, wallet.toLowerCase(), `0x${wallet.slice(2).toUpperCase()}`);

/** Functions whose arguments the generator knows, so many requests are valid up to one field. */
const FUNCTIONS: { signature: string; args: fc.Arbitrary<Record<string, unknown>> }[] = [
  { signature: "ping()", args: fc.constant({}) },
  { signature: "function setNote(string note)", args: fc.record({ note: hostileString }) },
  {
    signature: "transfer(address to, uint256 amount)",
    args: fc.record({
      to: fc.oneof(address, badAddress),
      amount: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 256n }).map(String), fc.integer(), fc.double(), fc.constantFrom("-1", "1e3", "0x10", " 1", "")),
    }),
  },
  {
    signature: "setOrder((uint256 id, bytes32 tag) order, uint8[] flags)",
    args: fc.record({
      order: fc.oneof(fc.record({ id: fc.nat().map(String), tag: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString("hex")}`) }), hostileValue),
      flags: fc.oneof(fc.array(fc.integer({ min: -1, max: 256 }), { maxLength: 5 }), hostileValue),
    }),
  },
  { signature: "f(bytes data, bool on, int8 d)", args: fc.record({ data: fc.oneof(fc.constantFrom("0x", "0x00ff", "0x0"), hostileString), on: fc.oneof(fc.boolean(), hostileValue), d: fc.integer({ min: -200, max: 200 }) }) },
];

const badSignature = fc.oneof(
  fc.constantFrom("", "f(", "f(uint256", "f(uint257 a)", "f(tuple a)", "event E()", "f(uint256[99999999999] a)", `f(${"(".repeat(40)}uint256${")".repeat(40)})`, "constructor()", "f(address payable a)"),
  hostileString,
);

interface RouteShape {
  name: string;
  runs: number;
  method: string;
  allowed: number[];
  path: fc.Arbitrary<string>;
  /** The body's object and the names of its fields; none for routes without a body. */
  body?: { objects: fc.Arbitrary<unknown>; fields: string[] };
  authenticated: boolean;
  /** Names no project (POST /transact/call): another project's key is not refused, so no 403. */
  unscoped?: boolean;
  documented?: string;
}

/** A route's cases: its path, maybe a body (also sent to routes that take none), transport and auth. */
function endpoint(world: World, shape: RouteShape): Endpoint {
  const body = shape.body ? bodyText(shape.body.objects, shape.body.fields) : fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: bodyText(hostileValue, ["x"]) });
  const auth = shape.authenticated ? authorization({ own: world.own.apiKey, other: world.other.apiKey }) : fc.constant<Auth>({ kind: "none" });
  // One case in four is well-formed HTTP with the project's key, so the fields' own mutations decide.
  const clean = fc.record({ path: shape.path, body: shape.body ? shape.body.objects.map((o) => JSON.stringify(o)) : fc.constant(undefined) }).map(({ path, body }) =>
    withSummary({
      method: shape.method,
      path,
      headers: { authorization: `Bearer ${world.own.apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : Buffer.from(body, "utf8"),
      auth: shape.authenticated ? "own" : "n/a",
    }),
  );
  const hostile = fc.record({ path: shape.path, query, body, transport, auth, extra: extraHeaders }).map(({ path, query: q, body, transport: t, auth: a, extra }): Case => {
    // An array sends the header twice, which OutgoingHttpHeaders does not type for Authorization.
    const headers: Record<string, string | string[]> = { ...extra };
    if (a.value !== undefined) headers.authorization = a.value;
    let bytes: Buffer | undefined;
    // A request whose headers are too large is refused before its body is read: send none.
    if (body !== undefined && !("x-pad" in extra)) {
      const encoded = encodeBody(body, t);
      Object.assign(headers, encoded.headers);
      bytes = encoded.body;
    }
    return withSummary({ method: shape.method, path: path.includes("?") ? path : path + q, headers, body: bytes, auth: shape.authenticated ? a.kind : "n/a" });
  });
  const cases = fc.oneof({ weight: 1, arbitrary: clean }, { weight: 3, arbitrary: hostile });
  const documented = shape.documented ? { method: shape.method.toLowerCase(), path: shape.documented } : undefined;
  const refusals = shape.authenticated ? AUTHENTICATED.filter((s) => !(shape.unscoped && s === 403)) : [];
  return { name: shape.name, runs: shape.runs, allowed: [...shape.allowed, ...TRANSPORT, ...refusals], documented, cases };
}

/** fast-check prints a counterexample with this instead of 40 KB of padding. */
export function withSummary(c: Case): Case {
  const cut = (text: string) => (text.length > 200 ? `${text.slice(0, 120)}…(${text.length} chars)` : text);
  const summary = () =>
    `${c.method} ${cut(c.path)} auth=${c.auth} headers=${cut(JSON.stringify(Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, cut(String(v))]))))} body=${c.body === undefined ? "none" : cut(JSON.stringify(c.body.toString("utf8")))}`;
  return Object.defineProperty(c, fc.toStringMethod, { value: summary, enumerable: false });
}

/** Query strings no route reads, which Express 5's parser must still survive. */
const query = fc.oneof(
  { weight: 8, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc.constantFrom("?a=%", "?%zz=1", "?__proto__[admin]=1&constructor[prototype][x]=1", "?a[b][c][d][e][f]=1&a=2&a[]=3", "?projectId=00000000-0000-4000-8000-000000000000", `?${"a=1&".repeat(2_000)}`, "?=&=&&", "?a=%00%ED%A0%80"),
  },
);

const pick = (ids: string[]) => fc.constantFrom(...ids);

/** An optional field's valid values: mostly absent, sometimes null, sometimes `value`. */
const optional = <T>(value: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: value });

/** Percent-encodes every UTF-8 byte (a lone surrogate becomes U+FFFD, as a client would send it). */
const percent = (text: string) => [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");

/** Query strings of Syndicate's list routes: paging, search and a filter, valid or not, repeated or not. */
function listQuery(world: World, flag: string, ...more: fc.Arbitrary<[string, string]>[]): fc.Arbitrary<string> {
  const pair = fc.oneof(
    fc.tuple(fc.constantFrom("page", "limit"), fc.oneof(fc.nat({ max: 200 }).map(String), fc.constantFrom("-1", "0", "1.5", "1e3", "", "99999999999", "0x10"), hostileString)),
    fc.tuple(fc.constant("search"), fc.oneof(hostileString, pick(world.own.transactionIds), pick(world.other.transactionIds), fc.constant(world.own.wallet), fc.constant("x".repeat(1_025)))),
    fc.tuple(fc.constant(flag), fc.oneof(fc.constantFrom("true", "false", "1", "TRUE", ""), hostileString)),
    ...more,
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${percent(v)}`).join("&")}`));
}

/** Query strings of our transaction list: each filter, the page size and the cursor, valid or not, repeated or not. */
function transactionListQuery(world: World): fc.Arbitrary<string> {
  const cursor = fc.oneof(
    fc.constantFrom("", "x", "bm90LWEtY3Vyc29y", "A".repeat(201), `${Buffer.from(`${world.own.projectId}|0|${world.own.projectId}|AAAAAAAAAAAAAAAA`).toString("base64url")}`),
    hostileString,
  );
  const pair = fc.oneof(
    fc.tuple(fc.constant("status"), fc.oneof(fc.constantFrom("PENDING", "SUBMITTED", "CONFIRMED,REVERTED", "confirmed", "MINED", "", ",", "PENDING,".repeat(200)), hostileString)),
    fc.tuple(fc.constant("chainId"), fc.oneof(fc.constantFrom(String(world.chainId), "0", "-1", "1.5", "0x10", "9".repeat(40)), hostileString)),
    fc.tuple(fc.constant("fromAddress"), fc.oneof(fc.constant(world.own.wallet), fc.constant(world.other.wallet), address, badAddress)),
    fc.tuple(fc.constantFrom("createdAfter", "createdBefore"), fc.oneof(fc.constantFrom("2026-11-26T16:00:00Z", "2026-11-26T16:00:00+02:00", "2026-11-26", "yesterday", "2026-13-40T99:99:99Z", ""), hostileString)),
    fc.tuple(fc.constant("limit"), fc.oneof(fc.nat({ max: 200 }).map(String), fc.constantFrom("-1", "0", "1.5", "1e3", "", "99999999999"), hostileString)),
    fc.tuple(fc.constant("cursor"), cursor),
    fc.tuple(fc.constantFrom("page", "x", "__proto__"), hostileString),
  );
  return fc.array(pair, { maxLength: 5 }).map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${percent(v)}`).join("&")}`));
}

/** Every route of the gateway, and the number of cases each gets (18 500 in all). */
export function endpoints(world: World): Endpoint[] {
  const { own, other } = world;
  const project = idSegment(fc.constantFrom(own.projectId, own.projectId, other.projectId));
  const anyOf = (mine: string[], theirs: string[]) => idSegment(fc.oneof({ weight: 4, arbitrary: pick(mine) }, { weight: 1, arbitrary: pick(theirs) }));

  const personalSign = mutatedObject({
    signerAddress: { valid: signerForms(own.wallet), bad: fc.oneof(fc.constant(other.wallet), address, badAddress) },
    message: { valid: hostileString, bad: fc.constantFrom("x".repeat(65_536), "x".repeat(65_537)) },
    signatureId: { valid: fc.oneof(fc.uuid(), fc.constant(undefined), fc.constant(null)), bad: fc.oneof(badUuid, pick([...own.signatureIds, ...other.signatureIds])) },
  });
  // The contract's fields, and (in a quarter of the bodies) the optional fields beyond it as well:
  // mutating all twelve in every body would leave few requests valid enough to be accepted.
  const sendTransaction = fc.constantFrom(...FUNCTIONS).chain((fn) => {
    const contractFields = {
      projectId: { valid: fc.constantFrom(own.projectId, own.projectId.toUpperCase()), bad: fc.oneof(fc.constant(other.projectId), fc.uuid(), badUuid) },
      contractAddress: { valid: address, bad: badAddress },
      chainId: { valid: fc.constant(world.chainId), bad: fc.oneof(fc.constantFrom(1, 0, -1, 1.5, 2 ** 53, 2 ** 63, "31901", null), fc.integer()) },
      functionSignature: { valid: fc.constant(fn.signature), bad: badSignature },
      args: { valid: fn.args, bad: fc.oneof(fc.array(hostileValue, { maxLength: 3 }), fc.dictionary(hostileString, hostileValue, { maxKeys: 3 })) },
      requestId: { valid: fc.oneof(fc.uuid(), fc.constant(undefined), fc.constant(null)), bad: fc.oneof(badUuid, pick([...own.transactionIds, ...other.transactionIds])) },
    };
    return fc.oneof(
      { weight: 3, arbitrary: mutatedObject(contractFields) },
      {
        weight: 1,
        arbitrary: mutatedObject({
          ...contractFields,
          errorSignatures: {
            valid: fc.oneof(
              { weight: 4, arbitrary: fc.constantFrom(undefined, null) },
              { weight: 1, arbitrary: fc.array(fc.constantFrom("error Failed(uint256 code)", "InsufficientBalance(uint256 available, uint256 required)", "error E((uint8 a, string[] b) t)"), { maxLength: 3 }) },
            ),
            bad: fc.oneof(
              fc.constantFrom("error Failed(uint256 code)", ["error A(uint257 x)"], ["function f(uint256 x)"], ["event E(uint256 x)"], ["error A(uint256 x"], Array.from({ length: 51 }, () => "error A()"), [`error A(${"uint256,".repeat(200)}uint256)`]),
              fc.array(fc.oneof(hostileString, hostileValue), { maxLength: 3 }),
            ),
          },
          // The optional fields beyond the contract: mostly absent, as most requests send them.
          value: { valid: optional(fc.bigInt({ min: 0n, max: 10n ** 18n }).map(String)), bad: fc.oneof(fc.constantFrom("-1", "1.5", "0x10", "1e18", "", (1n << 256n).toString(), 1, -1), hostileString) },
          fromAddress: { valid: optional(signerForms(own.wallet)), bad: fc.oneof(fc.constant(other.wallet), address, badAddress) },
          gasLimit: { valid: optional(fc.integer({ min: 21_000, max: 30_000_000 })), bad: fc.constantFrom(0, -1, 1.5, 20_999, 30_000_001, 2 ** 53, "50000", true) },
          maxFeePerGas: { valid: optional(fc.bigInt({ min: 1n, max: 10n ** 12n }).map(String)), bad: fc.oneof(fc.constantFrom("0", "-1", "1.5", "0x10", "", 1), hostileString) },
          expiresAt: { valid: optional(fc.constantFrom("2099-01-01T00:00:00Z", "2099-01-01T00:00:00.123+02:00")), bad: fc.oneof(fc.constantFrom("2020-01-01T00:00:00Z", "2030-01-01T00:00:00", "tomorrow", "", 0), hostileString) },
        }),
      },
    );
  });
  const eventCallback = mutatedObject({
    callbackURL: {
      valid: fc.oneof(fc.webUrl(), fc.constantFrom("https://example.com/hook", "http://127.0.0.1:9/hook")),
      bad: fc.oneof(fc.constantFrom("ftp://x/", "https://u:p@example.com/", "javascript:alert(1)", "http://[::1", "//example.com", `https://example.com/${"a".repeat(3_000)}`, "file:///etc/passwd"), hostileString),
    },
    eventType: { valid: fc.constantFrom("TransactionStatusChange", "WalletBalanceLow"), bad: fc.oneof(fc.constantFrom("transactionstatuschange", "Other", ""), hostileString) },
  });

  const createWallet = mutatedObject({
    projectId: { valid: fc.constantFrom(own.projectId, own.projectId.toUpperCase()), bad: fc.oneof(fc.constant(other.projectId), fc.uuid(), badUuid) },
    chainId: { valid: fc.constant(world.chainId), bad: fc.oneof(fc.constantFrom(1, 0, -1, 1.5, 2 ** 53, "31901", null), fc.integer()) },
    type: { valid: fc.constantFrom("BROADCAST", undefined, null), bad: fc.oneof(fc.constantFrom("SIGNING", "CLUSTER_MANAGER", "broadcast"), hostileString) },
    // HSM and KMS are valid names the hostile harness's workers are not configured for: a 400 naming their settings.
    backend: { valid: fc.constantFrom("LOCAL", "local", "HSM", "kms", undefined, null), bad: fc.oneof(fc.constantFrom("VAULT", "", 1, true, ["HSM"], { backend: "HSM" }), hostileString) },
  });
  // Never the project's first wallet, which the other routes sign and send with: addresses of no wallet (404), or the other
  // project's wallet (404 through this project; 200 with the other project's key and id).
  const walletChange = (extra: Record<string, { valid: fc.Arbitrary<unknown>; bad: fc.Arbitrary<unknown> }>) =>
    mutatedObject({
      projectId: { valid: fc.constantFrom(own.projectId, own.projectId.toUpperCase()), bad: fc.oneof(fc.constant(other.projectId), fc.uuid(), badUuid) },
      walletAddress: { valid: fc.oneof(address, fc.constant(other.wallet)), bad: badAddress },
      ...extra,
    });
  const typedField = fc.oneof(
    fc.record({ name: fc.constantFrom("to", "amount", "memo", "items"), type: fc.constantFrom("address", "uint256", "string", "Item[]", "bytes32", "Persn", "uint257", "int8[2]") }),
    hostileValue,
  );
  const signTypedData = mutatedObject({
    signerAddress: { valid: signerForms(own.wallet), bad: fc.oneof(fc.constant(other.wallet), address, badAddress) },
    domain: {
      valid: fc.record({ name: fc.constant("hostile"), chainId: fc.constantFrom(1, "31901") }, { requiredKeys: ["chainId"] }),
      bad: fc.oneof(fc.constant({}), fc.record({ chainId: hostileValue, verifyingContract: badAddress, salt: hostileString }), fc.dictionary(hostileString, hostileValue, { maxKeys: 3 })),
    },
    types: {
      valid: fc.constant({ Item: [{ name: "memo", type: "string" }], Transfer: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }, { name: "items", type: "Item[]" }] }),
      bad: fc.oneof(fc.dictionary(fc.oneof(fc.constantFrom("Transfer", "EIP712Domain", "constructor", "__proto__", "uint256"), hostileString), fc.array(typedField, { maxLength: 4 }), { maxKeys: 3 }), hostileValue),
    },
    primaryType: { valid: fc.constant("Transfer"), bad: fc.oneof(fc.constantFrom("EIP712Domain", "Item2", "toString", ""), hostileString) },
    message: {
      valid: fc.record({ to: fc.oneof(address, signerForms(own.wallet)), amount: fc.oneof(fc.nat().map(String), fc.nat()), items: fc.array(fc.record({ memo: hostileString }), { maxLength: 3 }) }),
      bad: fc.oneof(fc.record({ to: badAddress, amount: fc.constantFrom("-1", "1e3", 1.5, 2 ** 256), items: hostileValue }), fc.dictionary(hostileString, hostileValue, { maxKeys: 3 })),
    },
    signatureId: { valid: fc.oneof(fc.uuid(), fc.constant(undefined), fc.constant(null)), bad: fc.oneof(badUuid, pick([...own.signatureIds, ...other.signatureIds])) },
  });
  // chainId: one no chain record has, so that a call valid in every field is a 400 after all its checks (the hostile world has no node to answer).
  const readContract = fc.constantFrom(...FUNCTIONS).chain((fn) =>
    mutatedObject({
      chainId: { valid: fc.constant(18_499), bad: fc.oneof(fc.constantFrom(1.5, 0, -1, 2 ** 63, "31901", null), fc.integer()) },
      contractAddress: { valid: address, bad: badAddress },
      functionSignature: { valid: fc.constantFrom(fn.signature, `${fn.signature.replace(/^function /, "")} view returns (uint256)`), bad: badSignature },
      args: { valid: fn.args, bad: fc.oneof(fc.array(hostileValue, { maxLength: 3 }), fc.dictionary(hostileString, hostileValue, { maxKeys: 3 })) },
    }),
  );
  const pageQuery = fc.oneof(fc.constant(""), fc.constantFrom("?page=0&limit=1", "?limit=100", "?limit=101", "?page=-1", "?page=1.5", "?limit=abc", "?page[x]=1", "?limit=1&limit=2"));

  const shapes: RouteShape[] = [
    { name: "POST personalSign", runs: 2_000, method: "POST", documented: "/wallet/project/{projectId}/personalSign", allowed: [200, 400], authenticated: true, path: project.map((p) => `/wallet/project/${p}/personalSign`), body: { objects: personalSign, fields: ["signerAddress", "message", "signatureId"] } },
    { name: "GET signature", runs: 700, method: "GET", documented: "/wallet/project/{projectId}/signatures/{signatureId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.signatureIds, other.signatureIds)).map(([p, s]) => `/wallet/project/${p}/signatures/${s}`) },
    { name: "POST sendTransaction", runs: 2_500, method: "POST", documented: "/transact/sendTransaction", allowed: [200, 400, 409, 422], authenticated: true, path: fc.constantFrom("/transact/sendTransaction", "/transact/sendTransaction/", "/TRANSACT/sendtransaction"), body: { objects: sendTransaction, fields: ["projectId", "contractAddress", "chainId", "functionSignature", "args", "requestId", "errorSignatures", "value", "fromAddress", "gasLimit", "maxFeePerGas", "expiresAt"] } },
    { name: "GET transaction", runs: 700, method: "GET", documented: "/transact/project/{projectId}/transactions/{transactionId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.transactionIds, other.transactionIds)).map(([p, t]) => `/transact/project/${p}/transactions/${t}`) },
    { name: "GET transaction events", runs: 400, method: "GET", documented: "/transact/project/{projectId}/transactions/{transactionId}/events", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.transactionIds, other.transactionIds)).map(([p, t]) => `/transact/project/${p}/transactions/${t}/events`) },
    { name: "GET activity", runs: 300, method: "GET", documented: "/transact/project/{projectId}/activity", allowed: [200, 400], authenticated: true, path: fc.tuple(project, fc.oneof(fc.constantFrom("", "?window=hour", "?window=day", "?window=week", "?window=hour&window=day", "?window[x]=1", "?x=1", "?__proto__[x]=1"), fc.tuple(fc.constantFrom("window", "x"), hostileString).map(([k, v]) => `?${k}=${[...Buffer.from(v, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")}`))).map(([p, q]) => `/transact/project/${p}/activity${q}`) },
    { name: "POST eventCallback", runs: 1_200, method: "POST", documented: "/webhook/project/{projectId}/eventCallback", allowed: [200, 400], authenticated: true, path: project.map((p) => `/webhook/project/${p}/eventCallback`), body: { objects: eventCallback, fields: ["callbackURL", "eventType"] } },
    { name: "GET eventCallbacks", runs: 400, method: "GET", documented: "/webhook/project/{projectId}/eventCallbacks", allowed: [200, 400], authenticated: true, path: project.map((p) => `/webhook/project/${p}/eventCallbacks`) },
    { name: "DELETE eventCallback", runs: 400, method: "DELETE", documented: "/webhook/project/{projectId}/eventCallback/{eventCallbackId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.callbackIds, other.callbackIds)).map(([p, c]) => `/webhook/project/${p}/eventCallback/${c}`) },
    { name: "POST rotateSecret", runs: 400, method: "POST", documented: "/webhook/project/{projectId}/eventCallback/{eventCallbackId}/rotateSecret", allowed: [200, 400, 404, 409], authenticated: true, path: fc.tuple(project, anyOf(own.callbackIds, other.callbackIds)).map(([p, c]) => `/webhook/project/${p}/eventCallback/${c}/rotateSecret`) },
    { name: "POST redeliver", runs: 300, method: "POST", documented: "/webhook/project/{projectId}/eventCallback/{eventCallbackId}/delivery/{deliveryId}/redeliver", allowed: [200, 400, 404, 409], authenticated: true, path: fc.tuple(project, anyOf(own.callbackIds, other.callbackIds), idSegment(fc.uuid())).map(([p, c, d]) => `/webhook/project/${p}/eventCallback/${c}/delivery/${d}/redeliver`) },
    { name: "GET wallets", runs: 300, method: "GET", documented: "/wallet/project/{projectId}/wallets", allowed: [200, 400], authenticated: true, path: fc.tuple(project, fc.constantFrom("", "?withData=true", "?withData=false", "?withData=1", "?withData=true&withData=false", "?other=1")).map(([p, q]) => `/wallet/project/${p}/wallets${q}`) },
    { name: "POST createWallet", runs: 300, method: "POST", documented: "/wallet/create", allowed: [200, 400], authenticated: true, path: fc.constant("/wallet/create"), body: { objects: createWallet, fields: ["projectId", "chainId", "type", "backend"] } },
    { name: "POST toggleIsActive", runs: 400, method: "POST", documented: "/wallet/toggleIsActive", allowed: [200, 400, 404], authenticated: true, path: fc.constant("/wallet/toggleIsActive"), body: { objects: walletChange({}), fields: ["projectId", "walletAddress"] } },
    { name: "POST retireWallet", runs: 400, method: "POST", documented: "/wallet/retire", allowed: [200, 400, 404], authenticated: true, path: fc.constant("/wallet/retire"), body: { objects: walletChange({ gasRecipient: { valid: fc.constant(undefined), bad: fc.oneof(address, hostileValue) } }), fields: ["projectId", "walletAddress", "gasRecipient"] } },
    { name: "GET Syndicate request", runs: 400, method: "GET", documented: "/wallet/project/{projectId}/request/{transactionId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.transactionIds, other.transactionIds)).map(([p, t]) => `/wallet/project/${p}/request/${t}`) },
    { name: "GET Syndicate requests", runs: 500, method: "GET", documented: "/wallet/project/{projectId}/requests", allowed: [200, 400], authenticated: true, path: fc.tuple(project, listQuery(world, "invalid")).map(([p, q]) => `/wallet/project/${p}/requests${q}`) },
    { name: "GET Syndicate transactions", runs: 500, method: "GET", documented: "/wallet/project/{projectId}/transactions", allowed: [200, 400], authenticated: true, path: fc.tuple(project, listQuery(world, "reverted", fc.tuple(fc.constant("status"), fc.oneof(fc.constantFrom("PENDING", "PROCESSED", "SUBMITTED", "CONFIRMED", "PAUSED", "ABANDONED", "confirmed", "DONE", ""), hostileString)))).map(([p, q]) => `/wallet/project/${p}/transactions${q}`) },
    { name: "GET Syndicate transactionStats", runs: 200, method: "GET", documented: "/wallet/project/{projectId}/transactionStats", allowed: [200, 400], authenticated: true, path: project.map((p) => `/wallet/project/${p}/transactionStats`) },
    { name: "POST signTypedData", runs: 1_200, method: "POST", documented: "/wallet/project/{projectId}/signTypedData", allowed: [200, 400], authenticated: true, path: project.map((p) => `/wallet/project/${p}/signTypedData`), body: { objects: signTypedData, fields: ["signerAddress", "domain", "types", "primaryType", "message", "signatureId"] } },
    { name: "GET typed-data signature", runs: 300, method: "GET", documented: "/wallet/project/{projectId}/signature/{signatureId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.signatureIds, other.signatureIds)).map(([p, s]) => `/wallet/project/${p}/signature/${s}`) },
    { name: "GET typed-data signatures", runs: 300, method: "GET", documented: "/wallet/project/{projectId}/signatures", allowed: [200, 400], authenticated: true, path: fc.tuple(project, pageQuery).map(([p, q]) => `/wallet/project/${p}/signatures${q}`) },
    { name: "GET personal signature", runs: 300, method: "GET", documented: "/wallet/project/{projectId}/personalSignature/{signatureId}", allowed: [200, 400, 404], authenticated: true, path: fc.tuple(project, anyOf(own.signatureIds, other.signatureIds)).map(([p, s]) => `/wallet/project/${p}/personalSignature/${s}`) },
    { name: "GET personal signatures", runs: 300, method: "GET", documented: "/wallet/project/{projectId}/personalSignatures", allowed: [200, 400], authenticated: true, path: fc.tuple(project, pageQuery).map(([p, q]) => `/wallet/project/${p}/personalSignatures${q}`) },
    { name: "GET projects", runs: 200, method: "GET", documented: "/transact/projects", allowed: [200], authenticated: true, unscoped: true, path: fc.constantFrom("/transact/projects", "/transact/projects/", "/TRANSACT/Projects", "/transact/projects?x=1", "/transact/projects?__proto__[x]=1") },
    { name: "POST /transact/call", runs: 1_200, method: "POST", documented: "/transact/call", allowed: [200, 400], authenticated: true, unscoped: true, path: fc.constantFrom("/transact/call", "/transact/call/", "/TRANSACT/Call"), body: { objects: readContract, fields: ["chainId", "contractAddress", "functionSignature", "args"] } },
    { name: "POST cancel", runs: 300, method: "POST", documented: "/transact/project/{projectId}/transactions/{transactionId}/cancel", allowed: [200, 400, 404, 409], authenticated: true, path: fc.tuple(project, anyOf(own.transactionIds, other.transactionIds)).map(([p, t]) => `/transact/project/${p}/transactions/${t}/cancel`) },
    { name: "POST speedUp", runs: 300, method: "POST", documented: "/transact/project/{projectId}/transactions/{transactionId}/speedUp", allowed: [200, 400, 404, 409], authenticated: true, path: fc.tuple(project, anyOf(own.transactionIds, other.transactionIds)).map(([p, t]) => `/transact/project/${p}/transactions/${t}/speedUp`) },
    { name: "GET /health, /ready, /openapi.json", runs: 600, method: "GET", allowed: [200, 400], authenticated: false, path: fc.constantFrom("/health", "/ready", "/openapi.json", "/health?x=%", "/ready?a[b][c]=1&a=2&__proto__[x]=1", "/openapi.json?" + "q=1&".repeat(500)) },
    {
      name: "unknown routes and path abuse",
      runs: 1_400,
      method: "POST",
      allowed: [400, 404],
      authenticated: true,
      path: fc
        .tuple(fc.constantFrom("", "/wallet", "/transact", "/webhook", "/wallet/project", "/webhook/project", "/health", "/x"), fc.array(idSegment(fc.constantFrom(own.projectId, "personalSign", "eventCallback", "signatures")), { maxLength: 4 }), fc.constantFrom("", "/", "//", "?a=%", "#x"))
        .map(([head, segments, tail]) => `${head}/${segments.join("/")}${tail}`)
        .filter((p) => !/^\/(health|ready|openapi\.json)\/?(\?|#|$)/i.test(p) && !/^\/wallet\/project\/[^/]+\/personalSign\/?$/i.test(p) && !/^\/wallet\/project\/[^/]+\/(signTypedData|signatures|personalSignatures)\/?(\?|#|$)/i.test(p) && !/^\/webhook\/project\/[^/]+\/(eventCallbacks?|eventCallback\/[^/]+(\/rotateSecret)?)\/?$/i.test(p)),
    },
    {
      name: "GET funding transactions",
      runs: 500,
      method: "GET",
      documented: "/funding/project/{projectId}/transactions",
      allowed: [200, 400],
      authenticated: true,
      path: fc
        .tuple(
          project,
          fc.oneof(
            fc.constantFrom("", "?page=0&limit=10", "?page=3&limit=100", "?page=-1", "?limit=0", "?limit=101", "?page=1.5", "?page=1&page=2", "?limit=%", "?page[x]=1", "?__proto__[x]=1", `?page=${"9".repeat(400)}`),
            fc.tuple(fc.constantFrom("page", "limit", "x"), hostileString).map(([k, v]) => `?${k}=${[...Buffer.from(v, "utf8")].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")}`),
          ),
        )
        .map(([p, query]) => `/funding/project/${p}/transactions${query}`),
    },
    {
      name: "GET policy",
      runs: 200,
      method: "GET",
      documented: "/transact/project/{projectId}/policy",
      allowed: [200, 400],
      authenticated: true,
      path: fc.tuple(project, fc.constantFrom("", "/", "?x=1", "?__proto__[x]=1")).map(([p, q]) => `/transact/project/${p}/policy${q}`),
    },
    {
      name: "GET transactions list",
      runs: 500,
      method: "GET",
      documented: "/transact/project/{projectId}/transactions",
      allowed: [200, 400],
      authenticated: true,
      path: fc.tuple(project, transactionListQuery(world)).map(([p, q]) => `/transact/project/${p}/transactions${q}`),
    },
  ];
  return shapes.map((s) => endpoint(world, s)).flatMap((e) =>
    e.name === "unknown routes and path abuse"
      ? ["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => ({
          ...e,
          name: `${e.name} (${method})`,
          runs: 280,
          // Only these prefixes require a key; elsewhere an unknown route is a 404 for anyone.
          cases: e.cases.map((c) => withSummary({ ...c, method, auth: /^\/(wallet|transact|webhook)(\/|\?|#|$)/i.test(c.path) ? c.auth : "n/a" })),
        }))
      : [e],
  );
}
