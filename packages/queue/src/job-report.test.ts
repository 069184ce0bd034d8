import { firstDueAt, isLastAttempt, linkedIdsOf } from "./job-report";

describe("job report", () => {
  it("links only the id fields of a payload", () => {
    expect(linkedIdsOf({ v: 1, signatureId: "s", attempt: "abc", reqId: "r" })).toEqual({ signatureId: "s", reqId: "r" });
    expect(linkedIdsOf({ v: 1, projectId: "p", transactionId: "t" })).toEqual({ projectId: "p", transactionId: "t" });
    expect(linkedIdsOf({ v: 1 })).toEqual({});
  });

  it("links the ids of a batch job as lists", () => {
    expect(linkedIdsOf({ v: 2, batch: "b", signatures: [{ signatureId: "s1", reqId: "r1" }, { signatureId: "s2" }] })).toEqual({
      signatureIds: ["s1", "s2"],
      reqIds: ["r1"],
    });
  });

  it("counts latency from the first time the job was due", () => {
    expect(firstDueAt({ timestamp: 1000, opts: {} })).toBe(1000);
    expect(firstDueAt({ timestamp: 1000, opts: { delay: 500 } })).toBe(1500);
  });

  it("knows the last attempt: not retryable, or the attempts used up", () => {
    expect(isLastAttempt({ attemptsMade: 0, opts: { attempts: 3 } }, true)).toBe(false);
    expect(isLastAttempt({ attemptsMade: 2, opts: { attempts: 3 } }, true)).toBe(true);
    expect(isLastAttempt({ attemptsMade: 0, opts: { attempts: 3 } }, false)).toBe(true);
    expect(isLastAttempt({ attemptsMade: 0, opts: {} }, true)).toBe(true);
  });
});
