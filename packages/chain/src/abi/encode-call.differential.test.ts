import fc from "fast-check";
import { Interface } from "ethers";
import { encodeCall } from "./encode-call";
import { parseFunctionSignature } from "./parse-function-signature";

/**
 * encodeCall encodes with viem; ethers' AbiCoder is the reference. For random parameter lists
 * (scalars of every kind, fixed and dynamic arrays, named and unnamed tuples, nested) and random
 * values, the calldata must be the same bytes.
 */
type AbiType =
  | { kind: "scalar"; type: string; value: fc.Arbitrary<unknown> }
  | { kind: "array"; of: AbiType; length: number | null }
  | { kind: "tuple"; components: { name: string | null; type: AbiType }[] };

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
const uint = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n }).map(String);
const int = (bits: number) => fc.bigInt({ min: -(1n << BigInt(bits - 1)), max: (1n << BigInt(bits - 1)) - 1n }).map(String);
const bits = fc.integer({ min: 1, max: 32 }).map((n) => n * 8);

const scalar: fc.Arbitrary<AbiType> = fc.oneof(
  bits.map((b): AbiType => ({ kind: "scalar", type: `uint${b}`, value: uint(b) })),
  bits.map((b): AbiType => ({ kind: "scalar", type: `int${b}`, value: int(b) })),
  fc.constant<AbiType>({ kind: "scalar", type: "address", value: hex(20) }),
  fc.constant<AbiType>({ kind: "scalar", type: "bool", value: fc.boolean() }),
  fc.constant<AbiType>({ kind: "scalar", type: "string", value: fc.string({ maxLength: 40, unit: "grapheme" }) }),
  fc.integer({ min: 0, max: 70 }).map((n): AbiType => ({ kind: "scalar", type: "bytes", value: hex(n) })),
  fc.integer({ min: 1, max: 32 }).map((n): AbiType => ({ kind: "scalar", type: `bytes${n}`, value: hex(n) })),
);

const abiType: fc.Arbitrary<AbiType> = fc.letrec<{ type: AbiType }>((tie) => ({
  type: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.record({ kind: fc.constant("array" as const), of: tie("type"), length: fc.option(fc.integer({ min: 1, max: 3 })) }),
    fc.record({
      kind: fc.constant("tuple" as const),
      components: fc.array(fc.record({ name: fc.option(fc.constantFrom("a", "b", "c", "d")), type: tie("type") }), { minLength: 1, maxLength: 3 }),
    }),
  ),
})).type;

const named = (components: { name: string | null }[]) => {
  const seen = new Set<string>();
  return components.map((c) => (c.name && !seen.has(c.name) && seen.add(c.name) ? c.name : null));
};

function typeText(t: AbiType): string {
  if (t.kind === "scalar") return t.type;
  if (t.kind === "array") return `${typeText(t.of)}[${t.length ?? ""}]`;
  const names = named(t.components);
  return `(${t.components.map((c, i) => `${typeText(c.type)}${names[i] ? ` ${names[i]}` : ""}`).join(", ")})`;
}

/** A JSON value for `t` as a request would send it: named tuples as objects, unnamed as arrays. */
function valueOf(t: AbiType): fc.Arbitrary<unknown> {
  if (t.kind === "scalar") return t.value;
  if (t.kind === "array") return fc.array(valueOf(t.of), t.length === null ? { maxLength: 3 } : { minLength: t.length, maxLength: t.length });
  const names = named(t.components);
  const values = fc.tuple(...t.components.map((c) => valueOf(c.type)));
  return names.every((n) => n !== null) ? values.map((vs) => Object.fromEntries(vs.map((v, i) => [names[i], v]))) : values;
}

const call = fc.array(abiType, { minLength: 1, maxLength: 3 }).chain((params) =>
  fc.tuple(fc.constant(params), fc.tuple(...params.map(valueOf))),
);

describe("encodeCall against ethers' AbiCoder", () => {
  test("the same calldata for random parameter lists and values", () => {
    fc.assert(
      fc.property(call, ([params, values]) => {
        const fragment = parseFunctionSignature(`function f(${params.map((p, i) => `${typeText(p)} p${i}`).join(", ")})`);
        const encoded = encodeCall(fragment, Object.fromEntries(values.map((v, i) => [`p${i}`, v])));
        expect(encoded.calldata).toBe(new Interface([fragment]).encodeFunctionData(fragment, encoded.normalizedArgs));
      }),
      { numRuns: 2000, seed: Number(process.env.FC_SEED ?? 20261123) },
    );
  });
});
