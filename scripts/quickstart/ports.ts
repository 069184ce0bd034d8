import { createServer } from "node:net";

/** Whether something already listens on host:port (a listen there fails with EADDRINUSE). */
export async function portTaken(host: string, port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve(true) : reject(e)));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/**
 * Fails, naming the setting to change, when a port the quick start is about to use is taken (most
 * often by another `npm start`): before anything is started or written, so the other instance's
 * chain record is left alone and no "Relay is running" is printed for a gateway that cannot listen.
 */
export async function ensurePortsFree(ports: readonly { host: string; port: number; setting: string; what: string }[]): Promise<void> {
  for (const { host, port, setting, what } of ports) {
    if (await portTaken(host, port)) {
      throw new Error(`port ${port} on ${host} (${what}) is in use, by another \`npm start\` perhaps: stop it, or start with ${setting}=<another port>`);
    }
  }
}
