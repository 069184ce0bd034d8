import { TypedDataEncoder } from "ethers";
import { checkTypedData, type TypedData } from "./typed-data";

const mail = (): TypedData => ({
  domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Person: [
      { name: "name", type: "string" },
      { name: "wallets", type: "address[]" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person[]" },
      { name: "contents", type: "string" },
    ],
    Unused: [{ name: "x", type: "uint8" }],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallets: ["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"] },
    to: [{ name: "Bob", wallets: ["0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB", "0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57"] }],
    contents: "Hello, Bob!",
  },
});

const badRequest = (data: TypedData): string => {
  try {
    checkTypedData(data);
  } catch (e) {
    expect((e as { code: string }).code).toBe("BAD_REQUEST");
    return (e as Error).message;
  }
  throw new Error("accepted");
};

describe("checkTypedData", () => {
  it("hashes nested structs and arrays as ethers does, ignoring unused types and the EIP712Domain entry", () => {
    const data = mail();
    const { Person, Mail } = data.types;
    expect(checkTypedData(data).digest).toBe(TypedDataEncoder.hash(data.domain, { Person: Person!, Mail: Mail! }, data.message));
  });

  it("names the field at fault", () => {
    const withType = (type: string) => {
      const d = mail();
      d.types.Mail![1] = { name: "to", type };
      return d;
    };
    expect(badRequest(withType("Persn[]"))).toMatch(/^types\.Mail\[1\]\.type names no type: "Persn\[\]"/);
    expect(badRequest({ ...mail(), primaryType: "Letter" })).toMatch(/^primaryType "Letter" is not one of types/);
    expect(badRequest({ ...mail(), domain: { ...mail().domain, verifyingContract: "0x12" } })).toMatch(/^domain\.verifyingContract must be/);
    expect(badRequest({ ...mail(), domain: { ...mail().domain, chain: 1 } })).toMatch(/^domain\.chain is not an EIP-712 domain field/);
    expect(badRequest({ ...mail(), domain: {} })).toMatch(/^domain needs at least one/);
    const d = mail();
    d.types.EIP712Domain = d.types.EIP712Domain!.slice(1);
    expect(badRequest(d)).toMatch(/^types\.EIP712Domain must list the domain's fields/);
    expect(badRequest({ ...mail(), message: { ...mail().message, from: { name: "Cow", wallets: ["0x1"] } } })).toMatch(/^message\.from\.wallets\[0\] must be/);
    expect(badRequest({ ...mail(), message: { from: mail().message.from, to: [] } })).toMatch(/^message\.contents is missing/);
    expect(badRequest({ ...mail(), message: { ...mail().message, cc: [] } })).toMatch(/^message\.cc is not a field of Mail/);
    const loop = mail();
    loop.types.Person!.push({ name: "friend", type: "Mail" });
    expect(badRequest(loop)).toMatch(/refers to itself/);
    const twice = mail();
    twice.types.Person!.push({ name: "name", type: "string" });
    expect(badRequest(twice)).toMatch(/^types\.Person\[2\]\.name: types\.Person has two fields named name/);
  });
});
