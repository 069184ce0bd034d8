/**
 * `npm start`: the whole system on one machine, in the foreground.
 *   1. a key-encryption key for development (.dev/kek, git-ignored) unless KEY_ENCRYPTION_KEY is set,
 *      and a webhook secret key (.dev/webhook-key) unless WEBHOOK_SECRET_KEY is set
 *   2. a local anvil chain (embedded default; RPC_URL points at another chain instead)
 *   3. the database created if missing and migrations applied, and the apps' login role (a member
 *      of relay_app, which cannot rewrite the audit log) created if missing
 *   4. the demo project, its funded wallet and a fresh API key
 *   5. the gateway and every worker, restarted if they die
 *   6. the records the reference's examples name (.dev/reference-examples.json), made through the API
 * Ctrl-C, SIGINT, SIGTERM or SIGHUP, or the end of the process that started it (npm killed),
 * stops everything; should this process die without stopping them, its orphan reaper does.
 */
import { join, resolve } from "node:path";
import { JsonRpcProvider } from "ethers";
import { DEV_KEY_FILES, loadGatewayConfig, loadSigningWorkerConfig } from "@relay/config";
import { createLogger } from "@relay/core";
import { createDatabase, ensureDatabase, migrate } from "@relay/db";
import { startAnvil } from "@relay/testing";
import { ensureAppRole } from "./app-role";
import { devKek } from "./dev-kek";
import { demoContract } from "./demo-contract";
import { startOrphanReaper, type OrphanReaper } from "./orphan-reaper";
import { watchParent } from "./parent-watch";
import { ensurePortsFree } from "./ports";
import { makeReferenceRecords } from "./reference-records";
import { seedDemo } from "./seed-demo";
import { supervise } from "./supervisor";

const root = resolve(__dirname, "../..");
const devDir = join(root, ".dev");
const say = (line: string) => process.stdout.write(`${line}\n`);

const anvilPort = () => Number(process.env.ANVIL_PORT ?? 8545);

async function chainFromEnv(reaper: OrphanReaper): Promise<{ rpcUrl: string; chainId: bigint; local: boolean; stop: () => Promise<void> }> {
  const rpcUrl = process.env.RPC_URL;
  if (rpcUrl) {
    const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
    const chainId = BigInt(await provider.send("eth_chainId", []));
    provider.destroy();
    return { rpcUrl, chainId, local: false, stop: async () => undefined };
  }
  const anvil = await startAnvil({
    port: anvilPort(),
    chainId: 31337,
    extraArgs: ["--state", join(devDir, "anvil-state.json")],
    onSpawn: (child) => reaper.watch(child),
  });
  return { rpcUrl: anvil.rpcUrl, chainId: BigInt(anvil.chainId), local: true, stop: anvil.stop };
}

async function waitForReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the gateway at ${url} did not become ready within ${timeoutMs / 1000} s; see .dev/logs/gateway.log`);
}

/** Set by scripts/start.sh: the process that ran it (npm), which may have ended before this one started. */
const parentPid = Number(process.env.QUICKSTART_PARENT_PID) || process.ppid;
delete process.env.QUICKSTART_PARENT_PID;

async function main() {
  // Whatever has been started when a stop is asked for, stopped once (Ctrl-C signals this process
  // twice: the terminal does, and npm passes its own on). What is not known here yet when the stop
  // comes (anvil until it is ready) is left to the reaper, once this process has exited.
  const running: { apps?: { stop: () => Promise<void> }; chain?: { stop: () => Promise<void> } } = {};
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string) => {
    stopping ??= (async () => {
      say(`Stopping… (${reason})`);
      await running.apps?.stop();
      await running.chain?.stop();
      process.exit(0);
    })();
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => shutdown(signal));
  watchParent(parentPid, () => shutdown("the process that started it has ended"));
  if (stopping) return; // that process ended already, during the install: nothing to start or write
  const reaper = startOrphanReaper();

  const kek = devKek(join(devDir, DEV_KEY_FILES.KEY_ENCRYPTION_KEY));
  if (kek.generated) say("Generated a development key-encryption key into .dev/kek (git-ignored). In production set KEY_ENCRYPTION_KEY instead.");
  const webhookKey = devKek(join(devDir, DEV_KEY_FILES.WEBHOOK_SECRET_KEY), "WEBHOOK_SECRET_KEY");
  if (webhookKey.generated) say("Generated a development webhook secret key into .dev/webhook-key (git-ignored). In production set WEBHOOK_SECRET_KEY instead.");
  const config = loadGatewayConfig({ ...process.env, WEBHOOK_SECRET_KEY: webhookKey.key });

  await ensurePortsFree([
    { host: config.host, port: config.port, setting: "PORT", what: "the gateway" },
    ...(process.env.RPC_URL ? [] : [{ host: "127.0.0.1", port: anvilPort(), setting: "ANVIL_PORT", what: "the local anvil chain" }]),
  ]);

  const chain = await chainFromEnv(reaper);
  running.chain = chain;
  say(chain.local ? `Started a local anvil chain ${chain.chainId} at ${chain.rpcUrl}` : `Using chain ${chain.chainId} at ${chain.rpcUrl}`);
  // A start that fails from here on stops the chain it started: exiting would leave anvil running.
  const failed = async (e: unknown): Promise<never> => {
    await chain.stop();
    throw e;
  };

  await ensureDatabase(config.databaseUrl).catch(failed);
  const { applied } = await migrate({ databaseUrl: config.databaseUrl, logger: createLogger({ name: "migrate", level: "warn" }) }).catch(failed);
  // The apps run as a member of relay_app, as docs/audit.md asks of a deployment; seeding and
  // migrating stay with the owner.
  const appDatabaseUrl = await ensureAppRole(config.databaseUrl).catch(failed);
  say(`Database ready (${applied.length} migration(s) applied now)`);
  say(`The apps connect as ${new URL(appDatabaseUrl).username}, a member of relay_app: they cannot change or delete audit log entries`);

  const db = createDatabase({ url: config.databaseUrl });
  const workerEnv = { ...process.env, DATABASE_URL: appDatabaseUrl, KEY_ENCRYPTION_KEY: kek.key };
  // The quick start is for one machine: its webhooks may go to a receiver on it (the example
  // receiver, a tunnel), unless the caller says otherwise. A deployment sets this itself.
  const webhookEnv: NodeJS.ProcessEnv = withoutWalletKeys({ WEBHOOK_ALLOW_PRIVATE: "true", ...process.env, DATABASE_URL: appDatabaseUrl, WEBHOOK_SECRET_KEY: webhookKey.key });
  const demo = await seedDemo(db, loadSigningWorkerConfig(workerEnv).kek, chain).catch(async (e: unknown) => {
    await db.$disconnect();
    return failed(e);
  });
  await db.$disconnect();
  const contract = chain.local ? await demoContract(chain.rpcUrl, join(devDir, "demo-contract.json"), chain.chainId).catch(failed) : null;

  // The gateway never holds a key-encryption key, current or previous (DESIGN.md).
  // The reference's examples name this demo's records, written (below) where the gateway reads them.
  const referenceFile = process.env.REFERENCE_EXAMPLES_FILE ?? join(devDir, "reference-examples.json");
  const gatewayEnv: NodeJS.ProcessEnv = withoutWalletKeys({ ...process.env, DATABASE_URL: appDatabaseUrl, WEBHOOK_SECRET_KEY: webhookKey.key, REFERENCE_EXAMPLES_FILE: referenceFile });
  if (stopping) return;
  const apps = supervise(
    [
      { name: "gateway", entry: "apps/gateway/dist/main.js", env: gatewayEnv },
      { name: "signing-worker", entry: "apps/signing-worker/dist/main.js", env: workerEnv },
      { name: "tx-worker", entry: "apps/tx-worker/dist/main.js", env: workerEnv },
      { name: "webhook-worker", entry: "apps/webhook-worker/dist/main.js", env: webhookEnv },
    ],
    { logDir: join(devDir, "logs"), say, onSpawn: (child) => reaper.watch(child) },
  );
  running.apps = apps;

  const baseUrl = `http://${config.host}:${config.port}`;

  await waitForReady(baseUrl, 60_000).catch(async (e: unknown) => {
    await apps.stop(); // exiting without this would leave the gateway and worker running, orphaned
    throw e;
  });
  // Not fatal: the reference then shows built-in example values, and the demo works as before.
  const reference = contract
    ? await makeReferenceRecords({ baseUrl, apiKey: demo.apiKey, projectId: demo.projectId, chainId: Number(demo.chainId), walletAddress: demo.walletAddress, contract, file: referenceFile }).then(
        () => true,
        (e: unknown) => {
          say(`The reference's example records could not be made (${e instanceof Error ? e.message : String(e)}); its examples show built-in values.`);
          return false;
        },
      )
    : false;
  say(
    [
      "",
      "Relay is running.",
      `  API:            ${baseUrl}   (reference: ${baseUrl}/docs)`,
      `  Console:        ${baseUrl}/console   (open it with the API key below)`,
      ...(reference ? [`  Reference:      its examples name this demo's records: each request in it works as shown (${referenceFile})`] : []),
      `  Project id:     ${demo.projectId}`,
      `  Wallet:         ${demo.walletAddress} (${demo.balanceEth} ETH on chain ${demo.chainId})`,
      `  API key:        ${demo.apiKey}`,
      "  Logs:           .dev/logs/",
      webhookEnv.WEBHOOK_ALLOW_PRIVATE === "true"
        ? "  Webhooks:       may go to loopback and private addresses on this machine (WEBHOOK_ALLOW_PRIVATE=true; never in production)"
        : "  Webhooks:       public addresses only (WEBHOOK_ALLOW_PRIVATE is not true)",
      `  Metrics:        ${baseUrl}/metrics`,
      config.adminToken
        ? `  Queues:         ${baseUrl}/admin/queues   (password: your ADMIN_TOKEN)`
        : "  Queues:         start with ADMIN_TOKEN=<16+ characters> for the dashboard at /admin/queues",
      "",
      "Try:",
      `  curl -s -X POST ${baseUrl}/wallet/project/${demo.projectId}/personalSign \\`,
      `    -H 'Authorization: Bearer ${demo.apiKey}' -H 'Content-Type: application/json' \\`,
      `    -d '{"signerAddress":"${demo.walletAddress}","message":"hello"}'`,
      ...(contract
        ? [
            "",
            `A contract call (${contract.name} at ${contract.address}, deployed on the local chain for the demo):`,
            `  curl -s -X POST ${baseUrl}/transact/sendTransaction \\`,
            `    -H 'Authorization: Bearer ${demo.apiKey}' -H 'Content-Type: application/json' \\`,
            `    -d '${JSON.stringify({ projectId: demo.projectId, chainId: Number(demo.chainId), contractAddress: contract.address, fromAddress: demo.walletAddress, ...contract.exampleCall(demo.walletAddress) })}'`,
            "and its status, history and attempts, with the transactionId it answers:",
            `  curl -s ${baseUrl}/transact/project/${demo.projectId}/transactions/<transactionId> -H 'Authorization: Bearer ${demo.apiKey}'`,
          ]
        : []),
      "",
      "Ctrl-C stops everything.",
    ].join("\n"),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`start failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});

/** `env` without the wallet keys' key-encryption keys: a previous one still opens every wallet not yet re-sealed. */
function withoutWalletKeys(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { KEY_ENCRYPTION_KEY: _key, KEY_ENCRYPTION_KEYS_PREVIOUS: _previous, ...rest } = env;
  return rest;
}
