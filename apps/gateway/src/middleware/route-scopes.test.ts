import { buildOpenApiDocument } from "../openapi";
import { ROUTE_SCOPES, scopeOf } from "./route-scopes";

describe("the route → scope table", () => {
  it("names every authenticated route of the OpenAPI document, once, and no route the document does not have", () => {
    const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
    const secured = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => (op.security ?? []).length > 0)
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
    );
    expect(ROUTE_SCOPES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(secured.sort());
  });

  it("matches as Express routes: any case, a trailing slash, one segment per parameter; HEAD as GET", () => {
    expect(scopeOf("POST", "/TRANSACT/sendtransaction/")).toBe("send");
    expect(scopeOf("GET", "/transact/project/p/transactions/t")).toBe("read");
    expect(scopeOf("HEAD", "/wallet/project/p/wallets")).toBe("read");
    expect(scopeOf("POST", "/transact/project/p/transactions/t/cancel")).toBe("send");
    expect(scopeOf("GET", "/transact/project/p/transactions/t/extra")).toBeNull();
    expect(scopeOf("DELETE", "/webhook/project/p/eventCallback/c")).toBe("webhooks");
    expect(scopeOf("POST", "/wallet/create")).toBe("wallets");
  });
});
