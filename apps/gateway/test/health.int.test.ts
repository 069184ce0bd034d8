import { startHarness, type Harness } from "./harness";

describe("health, readiness and API reference", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("health");
  });
  afterAll(() => h.close());

  it("reports liveness and readiness of Postgres and Redis", async () => {
    expect(await (await fetch(`${h.baseUrl}/health`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${h.baseUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
  });

  it("serves an OpenAPI document generated from the zod schemas, and a reference page", async () => {
    const doc = (await (await fetch(`${h.baseUrl}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, { post?: { requestBody: { content: Record<string, { schema: unknown }> } } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown>; required: string[] }> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/wallet/project/{projectId}/personalSign"]?.post).toBeDefined();
    const request = doc.components.schemas.PersonalSignRequest!;
    expect(Object.keys(request.properties).sort()).toEqual(["message", "signatureId", "signerAddress"]);
    expect(request.required.sort()).toEqual(["message", "signerAddress"]);
    const page = await fetch(`${h.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("swagger-ui");
    // The page loads /openapi.json, so it shows the examples of the records the gateway was given.
    const init = await fetch(`${h.baseUrl}/docs/swagger-ui-init.js`);
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('"swaggerUrl": "/openapi.json"');
  });
});
