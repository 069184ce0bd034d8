import { decodeCursor, encodeCursor } from "./transaction-list.cursor";

const project = "9b2f3c1e-7a4d-4e8b-9c0d-1a2b3c4d5e6f";
const other = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f";
const position = { createdAt: new Date("2026-11-26T16:00:00.123Z"), id: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0" };

describe("transaction list cursor", () => {
  it("reads back the position it was made from, to the millisecond", () => {
    expect(decodeCursor(project, encodeCursor(project, position))).toEqual(position);
  });

  it("refuses a cursor of another project's list", () => {
    expect(decodeCursor(other, encodeCursor(project, position))).toEqual({ error: "cursor belongs to another project's list" });
  });

  it("refuses a cursor altered in any character, cut, or made up", () => {
    const cursor = encodeCursor(project, position);
    const altered = Buffer.from(Buffer.from(cursor, "base64url").toString("utf8").replace("123|", "124|"), "utf8").toString("base64url");
    const message = /^cursor is not one this list returned/;
    for (const bad of [altered, cursor.slice(0, -3), cursor + "A", "", "x".repeat(300), "abc", "bm90|YQ|cursor", "a b", Buffer.from(`${project}|1|${position.id}|zz`).toString("base64url")]) {
      expect(decodeCursor(project, bad)).toEqual({ error: expect.stringMatching(message) });
    }
  });
});
