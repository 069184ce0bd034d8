import { buildOpenApiDocument } from "./openapi";

type Operation = { tags?: string[] };
const doc = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string }[];
  webhooks: Record<string, { post: { requestBody: { content: { "application/json": { schema: { $ref?: string; properties?: Record<string, unknown> } } } } } }>;
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, tags: op.tags })));
const tagOf = (route: string) => operations.find((o) => o.route === route)?.tags;

describe("the reference's sections and events", () => {
  it("puts every operation in exactly one listed section", () => {
    const names = doc.tags.map((t) => t.name);
    for (const { route, tags } of operations) expect({ route, tags: tags?.length === 1 && names.includes(tags[0]!) }).toEqual({ route, tags: true });
    // Every listed section holds something.
    for (const name of names) expect({ name, used: operations.some((o) => o.tags?.[0] === name) }).toEqual({ name, used: true });
  });

  it("groups routes by what they are for", () => {
    expect(tagOf("POST /transact/sendTransaction")).toEqual(["Transactions"]);
    expect(tagOf("POST /transact/project/{projectId}/transactions/{transactionId}/cancel")).toEqual(["Transactions"]);
    expect(tagOf("POST /transact/call")).toEqual(["Read-only calls"]);
    expect(tagOf("GET /transact/project/{projectId}/policy")).toEqual(["Policies"]);
    expect(tagOf("POST /wallet/project/{projectId}/personalSign")).toEqual(["Signing"]);
    expect(tagOf("POST /wallet/project/{projectId}/signTypedData")).toEqual(["Signing"]);
    expect(tagOf("GET /wallet/project/{projectId}/requests")).toEqual(["Syndicate reads"]);
    expect(tagOf("POST /wallet/create")).toEqual(["Wallets"]);
    expect(tagOf("GET /funding/project/{projectId}/transactions")).toEqual(["Managed gas"]);
    expect(tagOf("POST /webhook/project/{projectId}/eventCallback")).toEqual(["Webhooks"]);
    expect(tagOf("GET /health")).toEqual(["Operations"]);
  });

  it("describes every event POSTed to callback URLs, with its body's schema", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(["TransactionStatusChange", "WalletBalanceLow"]);
    const text = JSON.stringify(doc);
    for (const name of ["TransactionStatusChange", "WalletBalanceLow"]) {
      const schema = doc.webhooks[name]!.post.requestBody.content["application/json"].schema;
      expect(JSON.stringify(schema)).toMatch(/eventType|\$ref/);
    }
    // The body's fields are in the document, wherever the generator put the schema.
    for (const field of ["eventType", "transactionId", "previousStatus", "threshold"]) expect(text).toContain(`"${field}"`);
    // chainId is a JSON number in both events, as in requests.
    for (const name of ["TransactionStatusChange", "WalletBalanceLow"]) {
      const schema = doc.webhooks[name]!.post.requestBody.content["application/json"].schema as { properties: { data: { properties: { chainId: { type: string } } } } };
      expect(schema.properties.data.properties.chainId.type).toBe("integer");
    }
  });
});
