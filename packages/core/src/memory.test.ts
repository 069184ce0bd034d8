import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { APP_ENV, APP_NODE_FLAGS, HEAP_GROWTH_FLAG } from "./memory";

const runNode = (...args: string[]) => spawnSync(process.execPath, [...args, "-e", "0"], { encoding: "utf8" });

describe("app memory sizing", () => {
  // setFlagsFromString ignores a flag V8 does not know: a Node upgrade that renamed it would
  // silently bring back the unbounded growth. The command line refuses unknown flags.
  test("this Node knows the heap-growth flag that limitHeapGrowth sets, and every flag of APP_NODE_FLAGS", () => {
    expect(runNode("--no-such-v8-flag-for-this-test").status).not.toBe(0);
    expect(runNode(HEAP_GROWTH_FLAG).status).toBe(0);
    expect(runNode(...APP_NODE_FLAGS).status).toBe(0);
  });

  test("the Docker image runs with the same node flags and environment as the other launchers", () => {
    const dockerfile = readFileSync(resolve(__dirname, "../../../Dockerfile"), "utf8");
    const env = new Map([...dockerfile.matchAll(/^ENV (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
    expect(env.get("NODE_OPTIONS")?.split(" ")).toEqual([...APP_NODE_FLAGS]);
    for (const [name, value] of Object.entries(APP_ENV)) expect(env.get(name)).toBe(value);
  });
});
