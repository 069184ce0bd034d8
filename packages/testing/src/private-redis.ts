import { spawn, type ChildProcess } from "node:child_process";
import { createConnection } from "node:net";

/**
 * A Redis server of one scenario's own (the machine's shared one must never be restarted or
 * flushed): no persistence, so `restart()` is Redis coming back with every key lost.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGKILL, then a new empty server on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

const REDIS_SERVER = process.env.RELAY_FAULTS_REDIS_SERVER ?? "redis-server";

export async function startPrivateRedis(port: number): Promise<PrivateRedis> {
  let child = await launch(port);
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    restart: async (options = {}) => {
      await kill();
      if (options.downMs) await new Promise((r) => setTimeout(r, options.downMs));
      child = await launch(port);
    },
    stop: kill,
  };
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: "ignore",
  });
  process.once("exit", () => child.kill("SIGKILL"));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null) throw new Error(`redis-server on port ${port} ended at start (exit ${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" }, () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
  });
}
