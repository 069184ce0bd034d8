import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { CLOSE_MARGIN_MS } from "./process";

const SCRIPT = resolve(__dirname, "stop-and-exit.test-support.ts");

/** Runs the script through tsx and resolves with its exit code. */
function exitCodeOf(...args: string[]): Promise<number | null> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, ...args], { stdio: "ignore" });
    child.once("error", fail);
    child.once("exit", (code) => done(code));
  });
}

describe("runProcess: stopAndExit", () => {
  it("stops the app and exits with the code the app asked for", async () => {
    expect(await exitCodeOf()).toBe(75);
  });

  it("keeps that code when the stop does not finish in time", async () => {
    expect(await exitCodeOf("hang")).toBe(75);
  }, CLOSE_MARGIN_MS + 20_000);
});
