import { buildOpenApiDocument } from "../openapi";

type Schema = { type?: string | string[]; format?: string; minimum?: number; maximum?: number; description?: string; anyOf?: Schema[] };
type Doc = { components: { schemas: Record<string, { properties: Record<string, Schema>; required?: string[] }> } };

/** An optional field without its null: from `anyOf: [T, null]`, or `type: [t, "null"]`. */
function typeOf(schema: Schema): Schema {
  const inner = schema.anyOf?.find((s) => s.type !== "null") ?? schema;
  return Array.isArray(inner.type) ? { ...inner, type: inner.type.find((t) => t !== "null") } : inner;
}

describe("OpenAPI: sendTransaction's optional request fields", () => {
  const request = (buildOpenApiDocument() as Doc).components.schemas.SendTransactionRequest!;

  it("documents value, fromAddress, gasLimit, maxFeePerGas and expiresAt as optional, beside the contract's fields", () => {
    expect(Object.keys(request.properties).sort()).toEqual(
      ["args", "chainId", "contractAddress", "errorSignatures", "expiresAt", "fromAddress", "functionSignature", "gasLimit", "maxFeePerGas", "projectId", "requestId", "value"].sort(),
    );
    expect(request.required!.sort()).toEqual(["chainId", "contractAddress", "functionSignature", "projectId"]);
  });

  it("gives each its type, range and meaning", () => {
    const { value, fromAddress, gasLimit, maxFeePerGas, expiresAt } = request.properties as Record<string, Schema>;
    expect(typeOf(value!).type).toBe("string");
    expect(typeOf(maxFeePerGas!).type).toBe("string");
    expect(typeOf(fromAddress!).type).toBe("string");
    expect(typeOf(gasLimit!)).toMatchObject({ type: "integer", minimum: 21_000, maximum: 30_000_000 });
    expect(typeOf(expiresAt!)).toMatchObject({ type: "string", format: "date-time" });
    expect(value!.description).toMatch(/payable/);
    expect(expiresAt!.description).toMatch(/EXPIRED/);
    expect(maxFeePerGas!.description).toMatch(/waits/);
  });
});
