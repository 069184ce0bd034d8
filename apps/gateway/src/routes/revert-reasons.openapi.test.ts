import { buildOpenApiDocument } from "../openapi";

type Doc = { components: { schemas: Record<string, { properties: Record<string, { type?: unknown; items?: { type?: string } }>; required?: string[] }> } };

describe("OpenAPI: errorSignatures and revertData", () => {
  const doc = buildOpenApiDocument() as Doc;

  it("documents errorSignatures as an optional array of strings on sendTransaction", () => {
    const request = doc.components.schemas.SendTransactionRequest!;
    expect(request.properties.errorSignatures?.items?.type).toBe("string");
    expect(request.required).not.toContain("errorSignatures");
  });

  it("documents the read's revertData beside its error", () => {
    const record = doc.components.schemas.TransactionRecord!;
    expect(Object.keys(record.properties)).toEqual(expect.arrayContaining(["error", "revertData"]));
    expect(record.required).toContain("revertData");
  });
});
