import { chooseWallet, compilePolicy, refuseCall, refuseSpend, type CallToCheck } from "./evaluate-policy";
import { parsePolicy } from "./policy.schema";

const A = "0x00000000000000000000000000000000000000Aa";
const B = "0x00000000000000000000000000000000000000bB";
const call = (fields: Partial<CallToCheck> = {}): CallToCheck => ({
  chainId: 1n,
  contractAddress: A,
  functionSignature: "function transfer(address to, uint256 amount)",
  selector: "0xa9059cbb",
  valueWei: 0n,
  ...fields,
});
const compiled = (doc: unknown) => compilePolicy("p", parsePolicy(doc));

describe("refuseCall", () => {
  it("allows anything without a policy field", () => {
    expect(refuseCall(compiled({}), call({ valueWei: 10n ** 30n }))).toBeNull();
  });

  it("allowlist: any case of a listed address; a function by signature or selector; the same address listed twice allows both", () => {
    const policy = compiled({ contracts: { "1": [{ address: A.toLowerCase(), functions: ["transfer(address,uint256)"] }, { address: A, functions: ["0x095EA7B3"] }], "5": [{ address: B }] } });
    expect(refuseCall(policy, call())).toBeNull();
    expect(refuseCall(policy, call({ functionSignature: "function approve(address s, uint256 a)", selector: "0x095ea7b3" }))).toBeNull();
    expect(refuseCall(policy, call({ functionSignature: "function ping()", selector: "0x5c36b186" }))).toMatch(/^policy contracts: function ping\(\) \(selector 0x5c36b186\) is not allowed on contract/);
    expect(refuseCall(policy, call({ contractAddress: B }))).toMatch(/^policy contracts: contract 0x0+bB is not on project p's allowlist for chain 1;/);
    expect(refuseCall(policy, call({ chainId: 5n, contractAddress: B, selector: "0x12345678" }))).toBeNull();
    expect(refuseCall(policy, call({ chainId: 10n }))).toMatch(/has no entry for chain 10, so no contract may be called on it/);
  });

  it("an entry without functions allows every function, even when another entry of the address lists some", () => {
    const policy = compiled({ contracts: { "1": [{ address: A, functions: ["0x00000001"] }, { address: A }] } });
    expect(refuseCall(policy, call())).toBeNull();
  });

  it("value per transaction: at the limit passes, above it is refused", () => {
    const policy = compiled({ valuePerTransactionWei: "100" });
    expect(refuseCall(policy, call({ valueWei: 100n }))).toBeNull();
    expect(refuseCall(policy, call({ valueWei: 101n }))).toMatch(/^policy valuePerTransactionWei: value 101 wei is above project p's limit of 100 wei per transaction;/);
  });
});

describe("chooseWallet and refuseSpend", () => {
  const policy = compiled({ valuePerWalletPerDayWei: "10", gasPerWalletPerDayWei: "1000" });
  const spends = [
    { address: A, valueWei: 2n, gasWei: 0n },
    { address: B, valueWei: 5n, gasWei: 0n },
  ];

  it("picks the wallet with the most value room that fits both limits", () => {
    expect(chooseWallet(policy, spends, { valueWei: 1n, gasWei: 100n })?.address).toBe(A);
    expect(chooseWallet(policy, [{ ...spends[0]!, gasWei: 950n }, spends[1]!], { valueWei: 1n, gasWei: 100n })?.address).toBe(B);
    expect(chooseWallet(policy, spends, { valueWei: 9n, gasWei: 0n })).toBeNull();
    expect(chooseWallet(policy, spends, { valueWei: 8n, gasWei: 1000n })?.address).toBe(A);
    expect(chooseWallet(policy, spends, { valueWei: 8n, gasWei: 1001n })).toBeNull();
  });

  it("names the limit that fails, the most room left, and the command", () => {
    expect(refuseSpend(policy, 1n, spends, { valueWei: 9n, gasWei: 0n }, false)).toBe(
      "policy valuePerWalletPerDayWei: no wallet of the project on chain 1 has room: the most any has is 8 wei left of its value limit of 10 wei per rolling 24 hours, and this transaction's value is 9 wei; wait for earlier transactions to leave the 24-hour window, or an operator raises the limit with `npm run relay -- policies limits --project p --value-per-day <wei>`",
    );
    expect(refuseSpend(policy, 1n, [spends[0]!], { valueWei: 1n, gasWei: 2000n }, true)).toMatch(
      /^policy gasPerWalletPerDayWei: wallet 0x0+Aa on chain 1 has 1000 wei left of its gas limit of 1000 wei per rolling 24 hours, and this transaction can pay up to 2000 wei in fees/,
    );
  });

  it("a limit lowered below what was spent reads as 0 left, not a negative amount", () => {
    expect(refuseSpend(compiled({ valuePerWalletPerDayWei: "1" }), 1n, [{ address: A, valueWei: 5n, gasWei: 0n }], { valueWei: 1n, gasWei: 0n }, true)).toContain("has 0 wei left");
  });
});

describe("parsePolicy", () => {
  it.each([
    [{ contracts: { "1": [{ address: "0x12" }] } }, "policy contracts.1.0.address: a 0x-prefixed 20-byte hex address"],
    [{ contracts: { abc: [] } }, "policy contracts.abc: a chain id as a decimal string"],
    [{ contracts: { "1": [{ address: A, functions: ["nope"] }] } }, 'policy contracts.1.0.functions.0: "nope" is neither a 4-byte selector (0x + 8 hex digits) nor a function signature such as "transfer(address,uint256)"'],
    [{ valuePerTransactionWei: 5 }, "policy valuePerTransactionWei: Invalid input: expected string, received number"],
    [{ valuePerWalletPerDayWei: "-1" }, 'policy valuePerWalletPerDayWei: a whole number of wei as a decimal string, e.g. "1000000000000000000"'],
    [{ gasPerWalletPerDayWei: "1", extra: true }, 'policy the policy document: Unrecognized key: "extra"'],
    [[], "policy the policy document: Invalid input: expected object, received array"],
  ])("%j → %s", (doc, message) => {
    expect(() => parsePolicy(doc)).toThrow(message);
  });
});
