import { buildOpenApiDocument } from "../openapi";

type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }>>;
  components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
};

describe("OpenAPI: Syndicate's signing routes and /transact/call", () => {
  const doc = buildOpenApiDocument() as Doc;

  it.each([
    ["post", "/wallet/project/{projectId}/signTypedData", ["200", "400", "401", "403", "500"]],
    ["get", "/wallet/project/{projectId}/signature/{signatureId}", ["200", "400", "404"]],
    ["get", "/wallet/project/{projectId}/signatures", ["200", "400"]],
    ["get", "/wallet/project/{projectId}/personalSignature/{signatureId}", ["200", "400", "404"]],
    ["get", "/wallet/project/{projectId}/personalSignatures", ["200", "400"]],
    ["post", "/transact/call", ["200", "400", "401", "503"]],
  ])("documents %s %s with its answers", (method, path, statuses) => {
    const operation = doc.paths[path]?.[method];
    expect(operation).toBeDefined();
    expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(statuses));
  });

  it("documents the lists' paging and the requests' fields as Syndicate's OpenAPI has them", () => {
    const query = doc.paths["/wallet/project/{projectId}/signatures"]!.get!.parameters!.filter((p) => p.in === "query").map((p) => p.name);
    expect(query.sort()).toEqual(["limit", "page"]);
    const typed = doc.components.schemas.SignTypedDataRequest!;
    expect(Object.keys(typed.properties).sort()).toEqual(["domain", "message", "primaryType", "signatureId", "signerAddress", "types"]);
    expect(typed.required!.sort()).toEqual(["domain", "message", "primaryType", "signerAddress", "types"]);
    const call = doc.components.schemas.ReadContractRequest!;
    expect(Object.keys(call.properties).sort()).toEqual(["args", "chainId", "contractAddress", "functionSignature"]);
    expect(call.required!.sort()).toEqual(["chainId", "contractAddress", "functionSignature"]);
  });
});
