import { getAddress } from "ethers";
import { encodeCall } from "./encode-call";
import { parseFunctionSignature } from "./parse-function-signature";
import { badRequestMessage } from "./expect-bad-request.test-support";

const ALICE = getAddress("0x" + "ab".repeat(20));
const TAG = "0x" + "11".repeat(32);
const TRANSFER = parseFunctionSignature("transfer(address to, uint256 amount)");
const ORDER = parseFunctionSignature(
  "setOrder((uint256 id, (address owner, bytes32 tag) meta, uint8[] flags) order, string note)",
);
const order = (patch: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Record<string, unknown> => ({
  order: { id: 1, meta: { owner: ALICE, tag: TAG, ...meta }, flags: [1], ...patch },
  note: "n",
});

/** Each error's message must start with the path of the offending field. */
function expectError(fragment: typeof TRANSFER, args: unknown, message: string | RegExp): void {
  const actual = badRequestMessage(() => encodeCall(fragment, args));
  if (typeof message === "string") expect(actual).toContain(message);
  else expect(actual).toMatch(message);
}

describe("encodeCall errors name the offending field", () => {
  it("refuses args that are not an object", () => {
    for (const args of [null, [], [ALICE, 1], "to=1", 1, true]) {
      expectError(TRANSFER, args, /^args must be an object keyed by parameter name or index; got /);
    }
    expectError(parseFunctionSignature("ping()"), [], /^args must be an object/);
    expectError(parseFunctionSignature("ping()"), null, /^args must be an object/);
    expectError(TRANSFER, new Date(), /^args must be an object/);
  });

  it("names missing, extra and doubly given parameters", () => {
    expectError(TRANSFER, { to: ALICE }, "args.amount is missing");
    expectError(TRANSFER, undefined, "args.to is missing");
    expectError(TRANSFER, { to: ALICE, amount: 1, foo: 1 }, "args.foo is not a parameter of transfer(address,uint256)");
    expectError(TRANSFER, { to: ALICE, amount: 1, "2": 1 }, "args.2 is not a parameter of transfer(address,uint256)");
    expectError(TRANSFER, { to: ALICE, "01": 1 }, "args.01 is not a parameter");
    expectError(TRANSFER, { to: ALICE, Amount: 1 }, "args.Amount is not a parameter");
    expectError(TRANSFER, { to: ALICE, amount: 1, "0": ALICE }, 'args.to is given twice, as "0" and as "to"');
    expectError(parseFunctionSignature("ping()"), { x: 1 }, "args.x is not a parameter of ping()");
    expectError(TRANSFER, { to: ALICE, amount: 1, "a b": 1 }, 'args["a b"] is not a parameter');
  });

  it("takes unnamed parameters only by index", () => {
    const f = parseFunctionSignature("f(address, uint256 amount)");
    expectError(f, { amount: 1 }, "args.0 is missing");
    expectError(f, { to: ALICE, amount: 1 }, "args.to is not a parameter of f(address,uint256); its parameters, by name or index: 0 (address, unnamed: by index only), amount or 1 (uint256)");
  });

  it("says which keys a function takes when given one it does not", () => {
    expectError(TRANSFER, { to: ALICE, Amount: 1 }, "args.Amount is not a parameter of transfer(address,uint256); its parameters, by name or index: to or 0 (address), amount or 1 (uint256)");
    expectError(parseFunctionSignature("ping()"), { x: 1 }, "args.x is not a parameter of ping(); it takes no parameters");
  });

  it("names missing, extra and wrongly shaped tuple components", () => {
    expectError(ORDER, order({}, { tag: undefined }), /^args\.order\.meta\.tag must be 0x-prefixed hex of exactly 32 bytes; got nothing/);
    const { meta: _meta, ...withoutMeta } = order().order as Record<string, unknown>;
    expectError(ORDER, { order: withoutMeta, note: "n" }, "args.order.meta is missing");
    expectError(ORDER, order({ extra: 1 }), "args.order.extra is not a component of args.order; its components, by name or index: id or 0 (uint256), meta or 1 (tuple(address,bytes32)), flags or 2 (uint8[])");
    expectError(ORDER, order({}, { x: 1 }), "args.order.meta.x is not a component of args.order.meta");
    expectError(ORDER, { order: [1, [ALICE, TAG], [1]], note: "n" }, "args.order must be an object with id, meta, flags; got an array of 3");
    expectError(ORDER, { order: null, note: "n" }, "args.order must be an object with id, meta, flags; got null");
    expectError(ORDER, { order: "x", note: "n" }, 'args.order must be an object with id, meta, flags; got "x"');
    const pair = parseFunctionSignature("f((uint256, address) pair)");
    expectError(pair, { pair: ["1"] }, "args.pair must have exactly 2 elements; got 1");
    expectError(pair, { pair: ["1", "0x12"] }, "args.pair[1] must be an address");
    expectError(pair, { pair: 1 }, "args.pair must be an object keyed by component (0, 1) or an array of 2");
  });

  it("names the element of an array, and checks fixed lengths", () => {
    expectError(ORDER, order({ flags: [1, 256] }), "args.order.flags[1] must be an integer between 0 and 2^8-1; got 256");
    expectError(ORDER, order({ flags: 1 }), "args.order.flags must be an array; got 1");
    const f = parseFunctionSignature("f(bytes32[3] tags, (address to, uint256 amount)[] payments)");
    expectError(f, { tags: [TAG, TAG], payments: [] }, "args.tags must have exactly 3 elements; got 2");
    expectError(f, { tags: TAG, payments: [] }, "args.tags must be an array of 3; got");
    expectError(f, { tags: [TAG, TAG, TAG], payments: [{ to: ALICE, amount: 1 }, { to: ALICE }] }, "args.payments[1].amount is missing");
    expectError(f, { tags: [TAG, TAG, TAG], payments: [{ to: "0x1", amount: 1 }] }, "args.payments[0].to must be an address");
  });

  it("checks addresses: 0x and 40 hex digits, and EIP-55 when the case is mixed", () => {
    const badChecksum = ALICE.slice(0, 2) + (ALICE[2] === "A" ? "a" : "A") + ALICE.slice(3);
    for (const to of [ALICE.slice(2), ALICE + "00", "0X" + ALICE.slice(2), "alice.eth", "XE7338O073KYGTWWZN0F2WZ0R8PX5ZPPZS", 1, null]) {
      expectError(TRANSFER, { to, amount: 1 }, /^args\.to must be an address \(0x and 40 hex digits\)/);
    }
    expectError(TRANSFER, { to: badChecksum, amount: 1 }, /^args\.to must be an address with a valid EIP-55 checksum/);
  });

  it("checks integers strictly, with the range of the type", () => {
    const f = parseFunctionSignature("f(uint256 amount, int8 delta)");
    const uint = "args.amount must be an integer between 0 and 2^256-1";
    for (const amount of [-1, "-1", 1.5, "1.5", "1e3", " 1", "1 ", "+1", "0x", "0X10", "0b1", "0o7", "1_000", "", "abc", true, null, [1], { n: 1 }]) {
      expectError(f, { amount, delta: 0 }, uint);
    }
    expectError(f, { amount: (2n ** 256n).toString(), delta: 0 }, uint);
    expectError(f, { amount: "0x1" + "0".repeat(64), delta: 0 }, uint);
    expectError(f, { amount: 2 ** 53, delta: 0 }, `${uint}; got 9007199254740992 (integers beyond 2^53 must be given as strings)`);
    expectError(f, { amount: 1, delta: 128 }, "args.delta must be an integer between -2^7 and 2^7-1; got 128");
    expectError(f, { amount: 1, delta: "-129" }, "args.delta must be an integer between -2^7 and 2^7-1");
    // Hex is a magnitude, not two's complement.
    expectError(f, { amount: 1, delta: "0xff" }, "args.delta must be an integer between -2^7 and 2^7-1");
  });

  it("checks bool, bytes, bytesN and string", () => {
    const f = parseFunctionSignature("f(bool on, bytes data, bytes4 sel, string text)");
    const ok = { on: true, data: "0x", sel: "0x12345678", text: "" };
    for (const on of ["true", 1, 0, null]) expectError(f, { ...ok, on }, /^args\.on must be true or false; got /);
    for (const data of ["0x1", "1234", "0xzz", "", 12]) {
      expectError(f, { ...ok, data }, /^args\.data must be 0x-prefixed hex of whole bytes/);
    }
    for (const sel of ["0x123456", "0x1234567890", "0x1234567g", "12345678"]) {
      expectError(f, { ...ok, sel }, /^args\.sel must be 0x-prefixed hex of exactly 4 bytes/);
    }
    for (const text of [1, null, ["a"], { a: 1 }]) expectError(f, { ...ok, text }, /^args\.text must be a string; got /);
    expectError(f, { ...ok, text: "a\ud800b" }, "args.text must be a string of valid Unicode");
    expectError(f, { ...ok, text: "a\u0000b" }, "args.text must not contain the NUL character (\\u0000)");
  });

  it("describes long values without echoing them", () => {
    const message = badRequestMessage(() => encodeCall(TRANSFER, { to: ALICE, amount: "9".repeat(5000) }));
    expect(message).toContain("a string of 5000 characters");
    expect(message.length).toBeLessThan(200);
    const key = badRequestMessage(() => encodeCall(TRANSFER, { to: ALICE, amount: 1, ["k".repeat(5000)]: 1 }));
    expect(key.length).toBeLessThan(200);
  });
});
