import { formatTable, toJson } from "./output";
import { describeRpcUrl } from "./rpc-probe";

describe("output", () => {
  it("aligns columns and says so when there is nothing to show", () => {
    type Row = { a: string; b: string };
    const rows: Row[] = [{ a: "1", b: "x" }, { a: "222", b: "yy" }];
    const columns = [{ header: "A", value: (r: Row) => r.a }, { header: "B", value: (r: Row) => r.b }];
    expect(formatTable(rows, columns, "none")).toBe("A    B\n1    x\n222  yy");
    expect(formatTable([], columns, "none")).toBe("none");
  });

  it("writes bigints as decimal strings", () => {
    expect(JSON.parse(toJson({ wei: 10n ** 30n }))).toEqual({ wei: "1000000000000000000000000000000" });
  });
});

describe("describeRpcUrl", () => {
  it("keeps the host and hides a path or query that may hold an API key", () => {
    expect(describeRpcUrl("https://mainnet.infura.io/v3/0123456789abcdef")).toBe("https://mainnet.infura.io/…");
    expect(describeRpcUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
    expect(describeRpcUrl("http://127.0.0.1:8545/?key=s")).toBe("http://127.0.0.1:8545/…");
  });
});
