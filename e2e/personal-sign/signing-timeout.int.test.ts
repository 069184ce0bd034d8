import { randomUUID } from "node:crypto";
import { createProjectFixture, type ProjectFixture } from "@relay/testing";
import { post, startHarness, type Harness } from "../support/harness";

describe("personal sign when the signing worker is down", () => {
  let h: Harness;
  let project: ProjectFixture;

  beforeAll(async () => {
    h = await startHarness("sign-timeout", { signTimeoutMs: 800 });
    project = await createProjectFixture(h.db, h.kek, { wallets: 1 });
  });
  afterAll(() => h.close());

  it("answers 500 with a message within the time-out, stores nothing, stays healthy, and signs once the worker is back", async () => {
    await h.stopWorker();
    const signatureId = randomUUID();
    const body = { signerAddress: project.wallets[0]!.address, message: "are you there?", signatureId };
    const started = Date.now();
    const res = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, body, project.apiKey);
    const elapsed = Date.now() - started;

    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(/did not complete within 800 ms; nothing was stored/);
    expect(elapsed).toBeLessThan(5000);
    expect(await h.db.signature.findUnique({ where: { projectId_id: { projectId: project.projectId, id: signatureId } } })).toBeNull();
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);

    await h.startWorker();
    const retry = await post(h.baseUrl, `/wallet/project/${project.projectId}/personalSign`, body, project.apiKey);
    expect(retry.status).toBe(200);
    expect((await h.db.signature.findUnique({ where: { projectId_id: { projectId: project.projectId, id: signatureId } } }))?.status).toBe("SIGNED");
  });
});
