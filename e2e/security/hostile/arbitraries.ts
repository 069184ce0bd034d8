import { parseApiKey } from "@relay/core";
import fc from "fast-check";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";

/**
 * fast-check arbitraries for what a hostile or broken client sends: strings that break naive
 * code, JSON of the wrong shape, bodies that are not JSON, and headers and path segments abused
 * every way node:http lets a client send them.
 */

/** Characters and fragments that trip string handling: NUL, lone surrogates, RTL and BOM, injection-looking text. */
const SPECIALS = [
  "\u0000", "\ud800", "\udfff", "\udc00\ud800", "\u202e", "\u200f", "\u2066", "\ufeff", "\uffff", "\ufffe", "🦊", "e\u0301",
  "\u0085", "\u2028", "\\", '"', "%", "%00", "../", "<script>", "'; DROP TABLE x;--", "${x}", "__proto__", "\r\n", "\t", " ",
];

const specials = (pool: string[]) => fc.array(fc.constantFrom(...pool, "a", "0"), { minLength: 1, maxLength: 10 }).map((a) => a.join(""));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 3, arbitrary: specials(SPECIALS) },
  // Well-formed ones too: a lone surrogate is refused early and would hide what comes after.
  { weight: 3, arbitrary: specials(SPECIALS.filter((s) => s.isWellFormed())) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 70_000 }).map((n) => "x".repeat(n)) },
);

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE, 1e-300, true, false, null),
);

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

/** Any JSON value, biased to the ones code gets wrong: deep, big, oddly typed. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: hostileScalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileScalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileScalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3_000 }).map(nested) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => new Array<number>(n).fill(1)) },
);

export const ABSENT = Symbol("absent");
export interface FieldSpec {
  valid: fc.Arbitrary<unknown>;
  /** Values of the right type but wrong (a bad address, a UUID of another project, ...). */
  bad?: fc.Arbitrary<unknown>;
}

const EXTRA_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "signatureID", ""];

/**
 * An object with each field valid (most often), absent, wrong or of any JSON type, sometimes with
 * extra keys such as `__proto__`, set as own properties so JSON.stringify sends them.
 */
export function mutatedObject(fields: Record<string, FieldSpec>): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(fields).map(([name, spec]) => {
    const options: fc.WeightedArbitrary<unknown>[] = [
      { weight: 12, arbitrary: spec.valid },
      { weight: 1, arbitrary: fc.constant(ABSENT) },
      { weight: 1, arbitrary: hostileValue },
    ];
    if (spec.bad) options.push({ weight: 2, arbitrary: spec.bad });
    return fc.oneof(...options).map((value) => [name, value] as const);
  });
  const extras = fc.dictionary(fc.oneof(fc.constantFrom(...EXTRA_KEYS), hostileString), hostileValue, { maxKeys: 2 });
  return fc.tuple(fc.tuple(...entries), fc.option(extras, { freq: 6 })).map(([values, extra]) => {
    const object: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, value] of values) if (value !== ABSENT) object[name] = value;
    for (const [name, value] of Object.entries(extra ?? {})) object[name] = value;
    return object;
  });
}

/** Raw JSON tokens JSON.stringify never writes: out-of-range and negative-zero numbers, huge integers. */
const RAW_VALUES = ["1e400", "-0", "1e-400", "123456789012345678901234567890", "null", "[]", "{}", '"\\ud800"', '"\\u0000"', "true"];

/** A request body as sent: mostly the JSON of `objects`, otherwise every way a body can be malformed. */
export function bodyText(objects: fc.Arbitrary<unknown>, fieldNames: string[]): fc.Arbitrary<string | Buffer> {
  const keys = fc.constantFrom(...fieldNames, "__proto__", "constructor");
  return fc.oneof(
    { weight: 14, arbitrary: objects.map((o) => JSON.stringify(o)) },
    {
      // A raw token as the last duplicate of a field (JSON.parse keeps the last).
      weight: 2,
      arbitrary: fc.tuple(objects, keys, fc.constantFrom(...RAW_VALUES)).map(([o, key, raw]) => {
        const text = JSON.stringify(o);
        if (!text.startsWith("{")) return text;
        return `${text.slice(0, -1)}${text.length > 2 ? "," : ""}${JSON.stringify(key)}:${raw}}`;
      }),
    },
    { weight: 2, arbitrary: fc.tuple(objects, fc.nat()).map(([o, n]) => { const t = JSON.stringify(o); return t.slice(0, n % Math.max(1, t.length)); }) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 100 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 40_000 }).map((n) => "[".repeat(n) + "]".repeat(n)) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 40_000 }).map((n) => `[${"1,".repeat(n)}1]`) },
    // Just under and just over the 64 KiB body limit.
    { weight: 1, arbitrary: fc.tuple(objects, fc.integer({ min: 60_000, max: 70_000 })).map(([o, n]) => JSON.stringify({ ...(o as object), pad: "x".repeat(n) })) },
    { weight: 1, arbitrary: fc.constantFrom("", " ", "null", "0", '"x"', "\ufeff{}", "{}{}", "{\"a\":1}x") },
    // Bytes that are not UTF-8 inside a JSON string.
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 20 }).map((b) => Buffer.concat([Buffer.from('{"message":"'), Buffer.from(b), Buffer.from('"}')])) },
  );
}

export interface Transport {
  contentType: string | string[] | undefined;
  contentEncoding: "gzip" | "deflate" | "br" | "gzip-garbage" | "br-garbage" | "x-unknown" | "identity" | undefined;
}

export const transport: fc.Arbitrary<Transport> = fc.record({
  contentType: fc.oneof(
    { weight: 14, arbitrary: fc.constant("application/json") },
    {
      weight: 4,
      arbitrary: fc.constantFrom<string | string[] | undefined>(
        undefined,
        "application/json; charset=utf-8",
        'application/json; charset="UTF-8"',
        "application/json; charset=latin1",
        "application/json; charset=utf-16le",
        "application/json; charset=nonsense",
        "application/merge-patch+json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset",
        ";;",
        "*/*",
        ["application/json", "text/plain"],
        ["text/plain", "application/json"],
      ),
    },
  ),
  contentEncoding: fc.oneof(
    { weight: 20, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.constantFrom<Transport["contentEncoding"]>("gzip", "deflate", "br", "gzip-garbage", "br-garbage", "x-unknown", "identity") },
  ),
});

/** Headers and body bytes for a transport; compressed encodings compress the body (or send garbage). */
export function encodeBody(body: string | Buffer, t: Transport): { headers: Record<string, string | string[]>; body: Buffer } {
  const headers: Record<string, string | string[]> = {};
  if (t.contentType !== undefined) headers["content-type"] = t.contentType;
  let bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, "utf8");
  switch (t.contentEncoding) {
    case undefined:
      break;
    case "gzip":
      bytes = gzipSync(bytes);
      break;
    case "deflate":
      bytes = deflateSync(bytes);
      break;
    case "br":
      bytes = brotliCompressSync(bytes);
      break;
    case "gzip-garbage":
    case "br-garbage":
      headers["content-encoding"] = t.contentEncoding.slice(0, -"-garbage".length);
      return { headers, body: bytes };
    default:
      break;
  }
  if (t.contentEncoding) headers["content-encoding"] = t.contentEncoding;
  return { headers, body: bytes };
}

/** Header values node:http will send: Latin-1 without control characters. */
export const latin1Text = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

export type AuthKind = "own" | "other" | "none" | "bad";
export interface Auth {
  kind: AuthKind;
  value?: string | string[];
}

/** The Authorization header: the project's key (most often, in several spellings), another project's key, none, or junk. */
export function authorization(keys: { own: string; other: string }): fc.Arbitrary<Auth> {
  const { own, other } = keys;
  const unknownKey = fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 32, maxLength: 32 }).map((id) => `rk_${id}_${parseApiKey(own)!.secret}`);
  const junk = fc.oneof(
    fc.constantFrom("Bearer", "Bearer ", "Basic dXNlcjpwYXNz", `Bearer ${own}x`, `Bearer ${own.slice(0, -1)}`, `Bearer ${own} ${own}`, `Token ${own}`, own, `Bearer ${own.replace("rk_", "rk-")}`, `Bearer ${"a".repeat(8_000)}`),
    unknownKey.map((k) => `Bearer ${k}`),
    latin1Text(60).map((t) => `Bearer ${t}`),
    latin1Text(60),
  );
  return fc.oneof(
    { weight: 14, arbitrary: fc.constant<Auth>({ kind: "own", value: `Bearer ${own}` }) },
    { weight: 1, arbitrary: fc.constantFrom(`bearer ${own}`, `BEARER   ${own}  `).map((value): Auth => ({ kind: "own", value })) },
    { weight: 2, arbitrary: fc.constant<Auth>({ kind: "other", value: `Bearer ${other}` }) },
    { weight: 1, arbitrary: fc.constant<Auth>({ kind: "none" }) },
    { weight: 3, arbitrary: junk.map((value): Auth => ({ kind: "bad", value })) },
    // Node keeps the first of duplicate Authorization headers.
    { weight: 1, arbitrary: junk.map((bad): Auth => ({ kind: "bad", value: [bad, `Bearer ${own}`] })) },
  );
}

/** Other headers: request ids, forwarding headers and, now and then, one too large for the server. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: latin1Text(200).map((v) => ({ "x-request-id": v })) },
  { weight: 1, arbitrary: latin1Text(100).map((v) => ({ "x-forwarded-for": v, "x-forwarded-proto": v })) },
  { weight: 1, arbitrary: fc.integer({ min: 17_000, max: 40_000 }).map((n) => ({ "x-pad": "a".repeat(n) })) },
);

/** A string as a path segment: every byte percent-encoded except unreserved characters. */
export function pathEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** A path segment for an id: the right one (most often), upper-cased, another UUID, or abuse. */
export function idSegment(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 1, arbitrary: valid.map((s) => s.toUpperCase()) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: hostileString.filter((s) => s.length > 0 && s.length < 3_000).map(pathEncode) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("%", "%zz", "%E0%A4%A", "%ED%A0%80", "%00", "a%2Fb", "..", ".", "%2e%2e", "%252F", "null", "0", "-1",
        "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", "{00000000-0000-4000-8000-000000000000}", ";x=1", "a:b", "@", "!$&'()*+,="),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 6_000 }).map((n) => "a".repeat(n)) },
    { weight: 1, arbitrary: fc.constant("a".repeat(20_000)) },
  );
}
