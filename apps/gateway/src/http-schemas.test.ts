import { describeIssues, projectIdParam } from "./http-schemas";
import { eventCallbackParams } from "./routes/event-callbacks.schema";
import { personalSignRequest, signatureIdParams } from "./routes/personal-sign.schema";
import { sendTransactionRequest, transactionParams } from "./routes/transactions.schema";

const ID = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11";
const UPPER = ID.toUpperCase();

describe("UUIDs in requests", () => {
  // A key of project a0ee… must reach /project/A0EE…: the access check compares strings.
  it("are read in any case and passed on in lower case, as Postgres returns them", () => {
    expect(projectIdParam.parse({ projectId: UPPER })).toEqual({ projectId: ID });
    expect(signatureIdParams.parse({ projectId: UPPER, signatureId: UPPER })).toEqual({ projectId: ID, signatureId: ID });
    expect(transactionParams.parse({ projectId: UPPER, transactionId: UPPER })).toEqual({ projectId: ID, transactionId: ID });
    expect(eventCallbackParams.parse({ projectId: UPPER, eventCallbackId: UPPER })).toEqual({ projectId: ID, eventCallbackId: ID });
    expect(personalSignRequest.parse({ signerAddress: `0x${"ab".repeat(20)}`, message: "m", signatureId: UPPER }).signatureId).toBe(ID);
    const tx = sendTransactionRequest.parse({ projectId: UPPER, requestId: UPPER, chainId: 1, contractAddress: `0x${"ab".repeat(20)}`, functionSignature: "f()" });
    expect([tx.projectId, tx.requestId]).toEqual([ID, ID]);
  });

  it("are still refused when they are not UUIDs", () => {
    expect(projectIdParam.safeParse({ projectId: `${ID}x` }).success).toBe(false);
    expect(projectIdParam.safeParse({ projectId: ` ${ID}` }).success).toBe(false);
  });
});

describe("describeIssues", () => {
  it("names unknown fields briefly, however long or many they are", () => {
    const input = { signerAddress: `0x${"ab".repeat(20)}`, message: "m", ["k".repeat(5000)]: 1, a: 1, b: 1, c: 1, d: 1, e: 1 };
    const result = personalSignRequest.safeParse(input);
    expect(result.success).toBe(false);
    expect(describeIssues(result.error!, input)).toBe(`unknown field(s) "${"k".repeat(40)}…", "a", "b", "c", "d" and 1 more`);
  });
});
