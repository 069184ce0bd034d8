import { createCodePresence } from "./code-presence";

function fakeProvider(codes: Map<string, string>) {
  const calls: string[] = [];
  return {
    calls,
    getCode: async (address: string) => {
      calls.push(address);
      return codes.get(address) ?? "0x";
    },
  };
}

describe("createCodePresence", () => {
  const contract = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const empty = "0x0000000000000000000000000000000000000bad";

  it("reads each address once while the answer is fresh, shared by concurrent callers", async () => {
    const provider = fakeProvider(new Map([[contract, "0x6080"]]));
    const hasCode = createCodePresence(provider, { presentMs: 60_000, absentMs: 1_000 }, () => 0);
    expect(await Promise.all([hasCode(contract), hasCode(contract), hasCode(contract.toLowerCase())])).toEqual([true, true, true]);
    expect(await hasCode(empty)).toBe(false);
    expect(provider.calls).toEqual([contract, empty]);
  });

  it("keeps a yes long and a no briefly: a contract deployed later is seen", async () => {
    const codes = new Map<string, string>([[contract, "0x6080"]]);
    const provider = fakeProvider(codes);
    let time = 0;
    const hasCode = createCodePresence(provider, { presentMs: 60_000, absentMs: 1_000 }, () => time);
    await hasCode(contract);
    expect(await hasCode(empty)).toBe(false);
    codes.set(empty, "0x6080");
    time = 999;
    expect(await hasCode(empty)).toBe(false);
    time = 1_000;
    expect(await hasCode(empty)).toBe(true);
    expect(await hasCode(contract)).toBe(true);
    expect(provider.calls).toEqual([contract, empty, empty]);
  });

  it("does not keep a failed read", async () => {
    let fail = true;
    const provider = {
      getCode: async () => {
        if (fail) throw new Error("node down");
        return "0x6080";
      },
    };
    const hasCode = createCodePresence(provider, { presentMs: 60_000, absentMs: 1_000 }, () => 0);
    await expect(hasCode(contract)).rejects.toThrow("node down");
    fail = false;
    expect(await hasCode(contract)).toBe(true);
  });
});
