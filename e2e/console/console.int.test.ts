import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { JsonRpcProvider } from "ethers";
import type { Page } from "playwright-core";
import { createDatabase, createPool, type Database } from "@relay/db";
import { createProducer, createRedis, type Redis } from "@relay/queue";
import {
  addChain,
  createProcessGroup,
  createProjectFixture,
  createTestDatabase,
  deleteRedisKeys,
  deployRecorder,
  fund,
  startAnvil,
  testKek,
  testQueuePrefix,
  type AnvilInstance,
  type DeployedRecorder,
  type ProcessGroup,
  type ProjectFixture,
  type TestDatabase,
} from "@relay/testing";
import { buildConsole } from "../../scripts/build/console";
import { sendTransaction } from "../support/transactions";
import { receiver } from "../support/webhook-receiver";
import { launchChromium } from "./browser";

/**
 * Where the screenshots go: test-results/console (not committed) unless CONSOLE_SCREENSHOT_DIR
 * names another folder; `CONSOLE_SCREENSHOT_DIR=docs/images` refreshes the ones the docs show.
 */
const SCREENSHOTS = resolve(join(__dirname, "../.."), process.env.CONSOLE_SCREENSHOT_DIR ?? "test-results/console");
const ADMIN_TOKEN = "console-test-operator-token-0123456789";
// Page-side code is given as text, or reaches the page's globals through globalThis: the tests
// are type-checked without the DOM's types.
const COLOUR = (el: unknown): string => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color;

/**
 * The console (docs/console.md) in a real headless Chromium against the gateway and the tx-worker
 * as processes, built from the sources into a folder of this test's own (CONSOLE_DIR). anvil mines
 * only when told, so the page is seen to move from SUBMITTED to CONFIRMED without a reload.
 */
describe("the console in a browser", () => {
  const kek = testKek();
  let consoleDir: string;
  let anvil: AnvilInstance;
  let rpc: JsonRpcProvider;
  let recorder: DeployedRecorder;
  let database: TestDatabase;
  let pool: ReturnType<typeof createPool>;
  let db: Database;
  let group: ProcessGroup;
  let gatewayUrl: string;
  let project: ProjectFixture;
  let other: ProjectFixture;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let prefix: string;
  let redis: Redis;

  beforeAll(async () => {
    consoleDir = mkdtempSync(join(tmpdir(), "console-dist-"));
    await buildConsole(consoleDir);
    anvil = await startAnvil({ chainId: 31_913 });
    recorder = await deployRecorder(anvil.rpcUrl);
    rpc = new JsonRpcProvider(anvil.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
    // The webhook dispatcher takes every project's events: a database of this test's own.
    database = await createTestDatabase({ migrate: true });
    pool = createPool({ url: database.url, poolSize: 4 });
    db = createDatabase({ pool });
    // A threshold the funded wallet is above and the other project's empty one below.
    await addChain(db, anvil, { stuckAfterSeconds: 600, lowBalanceThresholdWei: 10n ** 17n });
    project = await createProjectFixture(db, kek);
    other = await createProjectFixture(db, kek);
    await fund(anvil.rpcUrl, [project.wallets[0]!.address]);
    await rpc.send("evm_setAutomine", [false]);
    prefix = testQueuePrefix("console");
    redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer");
    group = createProcessGroup({ databaseUrl: database.url, queuePrefix: prefix, kek });
    gatewayUrl = (await group.startGateway({ env: { CONSOLE_DIR: consoleDir, ADMIN_TOKEN } })).url;
    await group.startTxWorker("tx-worker");
    // One retry, soon: a delivery a receiver refuses is FAILED within a second (then only a redelivery sends it again).
    await group.startWorker("webhook-worker", "webhook-worker", { env: { WEBHOOK_RETRY_SCHEDULE: "100ms" } });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await group?.stopAll();
    if (redis) {
      await deleteRedisKeys(redis, prefix);
      await redis.quit();
    }
    await db?.$disconnect();
    if (pool && !pool.ended) await pool.end();
    await database?.drop();
    rpc?.destroy();
    recorder?.provider.destroy();
    await anvil?.stop();
    if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
  });

  /** A key opens its own project (GET /transact/projects names it); the operator picks one. */
  const logIn = async (page: Page, who: ProjectFixture, token = who.apiKey): Promise<void> => {
    await page.goto(`${gatewayUrl}/console/`);
    await page.getByLabel("API key or admin token").fill(token);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    if (token === ADMIN_TOKEN) await pickProject(page, who);
    await page.getByRole("heading", { name: "Transactions" }).waitFor();
    expect(await page.locator(".project .mono").textContent()).toBe(who.projectId);
  };
  const pickProject = async (page: Page, who: ProjectFixture): Promise<void> => {
    await page.getByLabel("Project").selectOption(who.projectId);
    await page.getByRole("button", { name: "Open project" }).click();
  };

  const spend = (n: number) => ({ projectId: project.projectId, chainId: anvil.chainId, contractAddress: recorder.address, functionSignature: "spend(uint256 n)", args: { n } });

  it("logs in with a key, shows a transaction sent through the API reach CONFIRMED without a reload, and its detail", async () => {
    const page = await browser.context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(m.text());
    });
    page.on("response", (r) => {
      if (r.status() >= 400) pageErrors.push(`${r.status()} ${r.url()}`);
    });
    await logIn(page, project);
    // A mark on this document: gone if the page were loaded again.
    await page.evaluate("window.consoleMark = 7");

    const sent = await sendTransaction(gatewayUrl, project.apiKey, spend(3));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId!;
    const row = page.locator(`tr[data-transaction-id="${id}"]`);
    await row.and(page.locator('[data-status="SUBMITTED"]')).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: join(SCREENSHOTS, "console-transactions-submitted.png") });
    await rpc.send("evm_mine", []);
    await row.and(page.locator('[data-status="CONFIRMED"]')).waitFor({ timeout: 30_000 });
    expect(await row.locator(".badge").textContent()).toBe("CONFIRMED");
    expect(await page.evaluate("window.consoleMark")).toBe(7);
    await page.screenshot({ path: join(SCREENSHOTS, "console-transactions.png") });

    // Filters: the list route's, applied by the page.
    await page.getByLabel("Status").selectOption("REVERTED");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("No transactions match.").waitFor();
    await page.getByRole("button", { name: "Clear" }).click();
    await row.waitFor();

    // The detail: timeline, the attempt with its nonce and hash, the receipt; nothing left to cancel.
    await row.getByRole("link").click();
    await page.getByRole("heading", { name: /Transaction/ }).waitFor();
    await page.getByRole("heading", { name: "Receipt" }).waitFor();
    await page.getByText("gasUsed").waitFor();
    const timeline = await page.locator("ol.timeline .badge").allTextContents();
    expect(timeline).toEqual(["PENDING", "SUBMITTED", "CONFIRMED"]);
    const record = (await (await fetch(`${gatewayUrl}/transact/project/${project.projectId}/transactions/${id}`, { headers: { authorization: `Bearer ${project.apiKey}` } })).json()) as { hash: string; nonce: string };
    await page.locator("td.mono", { hasText: record.hash }).waitFor();
    expect(await page.getByRole("button", { name: "Cancel" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Speed up" }).isDisabled()).toBe(true);
    expect(page.url()).toBe(`${gatewayUrl}/console/transactions/${id}`);
    expect(await page.evaluate("window.consoleMark")).toBe(7);
    await page.screenshot({ path: join(SCREENSHOTS, "console-transaction.png"), fullPage: true });

    // The key is never in the page, and only in this tab's sessionStorage.
    expect(await page.content()).not.toContain(project.apiKey);
    expect(await page.evaluate("JSON.stringify(localStorage)")).not.toContain(project.apiKey);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("cancels a transaction that is still SUBMITTED from its page", async () => {
    const page = await browser.context.newPage();
    await logIn(page, project);
    const sent = await sendTransaction(gatewayUrl, project.apiKey, spend(4));
    const id = sent.body.transactionId!;
    await page.goto(`${gatewayUrl}/console/transactions/${id}`);
    await page.locator('[data-testid="detail-status"]', { hasText: "SUBMITTED" }).waitFor({ timeout: 30_000 });
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("status").filter({ hasText: "Cancel: requested" }).waitFor();
    // The cancel's attempt appears on the page once the worker has sent it; then a block takes it.
    await page.locator("td.mono", { hasText: "(cancel)" }).waitFor({ timeout: 30_000 });
    await rpc.send("evm_mine", []);
    await page.locator('[data-testid="detail-status"]', { hasText: "CANCELLED" }).waitFor({ timeout: 30_000 });
    await page.close();
  });

  it("shows a second project's key only that project's transactions", async () => {
    const page = await browser.context.newPage();
    await logIn(page, other);
    await page.getByText("No transactions match.").waitFor();
    const mine = await sendTransaction(gatewayUrl, project.apiKey, spend(5));
    // The first project's transaction asked for within its own project: the API has none, said as is.
    await page.goto(`${gatewayUrl}/console/transactions/${mine.body.transactionId}`);
    await page.getByRole("alert").waitFor();
    expect(await page.locator("tr[data-transaction-id]").count()).toBe(0);
    await page.goto(`${gatewayUrl}/console/`);
    await page.getByText("No transactions match.").waitFor();
    await page.close();
  });

  it("marks a receiver that answers 500 in red with its status code, and a healthy one not", async () => {
    const failing = await receiver({ answers: Array.from({ length: 50 }, () => 500) });
    const healthy = await receiver();
    try {
      const register = async (url: string) => {
        const res = await fetch(`${gatewayUrl}/webhook/project/${project.projectId}/eventCallback`, {
          method: "POST",
          headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ callbackURL: url, eventType: "TransactionStatusChange" }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string; secret: string }).id;
      };
      const bad = await register(failing.url);
      const good = await register(healthy.url);
      await sendTransaction(gatewayUrl, project.apiKey, spend(6));

      const page = await browser.context.newPage();
      await logIn(page, project);
      await page.getByRole("link", { name: "Event callbacks" }).click();
      await page.getByRole("heading", { name: "Event callbacks" }).waitFor();
      const badCard = page.locator(`article[data-callback-id="${bad}"]`);
      await badCard.locator(".failing-flag", { hasText: "500" }).waitFor({ timeout: 30_000 });
      expect(await badCard.getAttribute("data-failing")).toBe("true");
      const code = badCard.locator("td.status-code").first();
      expect(await code.textContent()).toBe("500");
      // Red: the row's colour is the failing one, not the text's default.
      expect(await code.evaluate(COLOUR)).toBe("rgb(207, 34, 46)");
      const goodCard = page.locator(`article[data-callback-id="${good}"]`);
      await goodCard.locator("td.status-code", { hasText: "200" }).first().waitFor({ timeout: 30_000 });
      expect(await goodCard.getAttribute("data-failing")).toBe("false");
      expect(await goodCard.locator("td.status-code").first().evaluate(COLOUR)).not.toBe("rgb(207, 34, 46)");
      // The secrets the registrations answered with are nowhere on the page.
      expect(await page.content()).not.toMatch(/whsec_/);
      await page.screenshot({ path: join(SCREENSHOTS, "console-callbacks.png"), fullPage: true });
      await page.close();
    } finally {
      await failing.close();
      await healthy.close();
    }
  });

  it("sends a FAILED delivery again from the page: the receiver, answering 200 now, gets it", async () => {
    let answer = 500;
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers["webhook-id"]));
      res.statusCode = answer;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const registered = await fetch(`${gatewayUrl}/webhook/project/${project.projectId}/eventCallback`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ callbackURL: url, eventType: "TransactionStatusChange" }),
      });
      const callbackId = ((await registered.json()) as { id: string }).id;
      const sent = await sendTransaction(gatewayUrl, project.apiKey, spend(8));

      const page = await browser.context.newPage();
      await logIn(page, project);
      await page.getByRole("link", { name: "Event callbacks" }).click();
      const card = page.locator(`article[data-callback-id="${callbackId}"]`);
      // Its second attempt, the last the schedule allows: the delivery is FAILED.
      const failedRow = card.locator('tr[data-attempt="2"]').first();
      await failedRow.waitFor({ timeout: 30_000 });
      const eventId = await failedRow.getAttribute("data-event-id");
      expect(await failedRow.locator("td.status-code").textContent()).toBe("500");

      answer = 200;
      await failedRow.getByRole("button", { name: /Send event .* again/ }).click();
      await page.getByRole("status").filter({ hasText: "is being sent again" }).waitFor();
      // Attempts start over: attempt 1 of the same event, answered 200, as the receiver saw it.
      await card.locator(`tr[data-event-id="${eventId}"][data-attempt="1"]`).filter({ has: page.locator("td.status-code", { hasText: "200" }) }).waitFor({ timeout: 30_000 });
      expect(seen.filter((id) => id === eventId).length).toBeGreaterThanOrEqual(3);

      // The transaction's page lists the events it produced and where each went.
      await page.goto(`${gatewayUrl}/console/transactions/${sent.body.transactionId}`);
      await page.getByRole("heading", { name: "Events sent" }).waitFor();
      const firstEvent = page.locator("ol.events > li").first();
      await firstEvent.locator("strong", { hasText: "PENDING" }).waitFor();
      await firstEvent.locator("li[data-delivery-status]", { hasText: url }).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: join(SCREENSHOTS, "console-transaction-events.png"), fullPage: true });
      await page.close();
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("shows each wallet's balance, low-balance state, next nonce beside the chain's and transactions in flight", async () => {
    // The scheduled balance check (once a minute), run now.
    const producer = createProducer({ connection: redis, prefix });
    await producer.enqueue("checkBalances", { v: 1 });
    await producer.close();
    const wallet = project.wallets[0]!.address;
    const unfinished = (await (
      await fetch(`${gatewayUrl}/transact/project/${project.projectId}/transactions?status=PENDING,SUBMITTED,PAUSED&limit=100`, { headers: { authorization: `Bearer ${project.apiKey}` } })
    ).json()) as { transactions: unknown[] };
    expect(unfinished.transactions.length).toBeGreaterThan(0);

    const page = await browser.context.newPage();
    await logIn(page, project);
    await page.getByRole("link", { name: "Wallets" }).click();
    const row = page.locator(`tr[data-wallet="${wallet}"]`);
    await row.getByText(/ETH$/).waitFor({ timeout: 30_000 });
    expect(await row.getAttribute("data-low")).toBe("false");
    expect(await row.locator(".in-flight").textContent()).toBe(String(unfinished.transactions.length));
    // The chain's nonce as that check read it from anvil (which holds the unfinished ones unmined),
    // beside the relay's next nonce, with its age.
    const latest = await rpc.getTransactionCount(wallet, "latest");
    const pending = await rpc.getTransactionCount(wallet, "pending");
    expect(pending).toBeGreaterThan(latest);
    const chainNonce = row.locator(`.chain-nonce[data-latest="${latest}"][data-pending="${pending}"]`);
    await chainNonce.waitFor({ timeout: 30_000 });
    expect(await chainNonce.textContent()).toMatch(new RegExp(`^${latest} \\(${pending} pending\\) \\d+ s ago`));
    await page.screenshot({ path: join(SCREENSHOTS, "console-wallets.png") });

    // The other project's wallet was never funded: below the chain's threshold, marked low.
    await page.getByRole("button", { name: "Sign out" }).click();
    await logIn(page, other);
    await page.getByRole("link", { name: "Wallets" }).click();
    const empty = page.locator(`tr[data-wallet="${other.wallets[0]!.address}"]`);
    await empty.locator(".low-flag").waitFor({ timeout: 30_000 });
    expect(await empty.getAttribute("data-low")).toBe("true");
    expect(await empty.getByText("0 ETH").count()).toBe(1);
    // Never sent from: the chain's nonce is 0, level with the relay's.
    await empty.locator('.chain-nonce[data-gap="level"][data-latest="0"]').waitFor({ timeout: 30_000 });
    await page.close();
  });

  it("charts the project's last hour and day: accepted and confirmed, time to confirm, delivery success, queue depth, the queue now", async () => {
    const api = async (window: string) =>
      (await (await fetch(`${gatewayUrl}/transact/project/${project.projectId}/activity?window=${window}`, { headers: { authorization: `Bearer ${project.apiKey}` } })).json()) as {
        buckets: { accepted: number; confirmed: number; waitingTransactions: number | null }[];
        waiting: { submitted: number };
      };
    // The queue depth sample the tx-worker takes once a minute (its first at start-up), asked for now
    // too: a minute already sampled is not sampled again.
    const producer = createProducer({ connection: redis, prefix });
    await producer.enqueue("sampleQueueDepths", { v: 1 });
    await producer.close();
    const sampledBuckets = async () => (await api("hour")).buckets.filter((b) => b.waitingTransactions !== null);
    for (let tries = 0; (await sampledBuckets()).length === 0; tries++) {
      if (tries > 100) throw new Error("no queue depth sample");
      await new Promise((r) => setTimeout(r, 200));
    }
    const hour = await api("hour");
    const accepted = hour.buckets.reduce((n, b) => n + b.accepted, 0);
    expect(accepted).toBeGreaterThan(3);
    expect(hour.buckets.reduce((n, b) => n + b.confirmed, 0)).toBeGreaterThan(0);

    const page = await browser.context.newPage();
    await logIn(page, project);
    await page.getByRole("link", { name: "Activity" }).click();
    await page.getByTestId("accepted-total").filter({ hasText: String(accepted) }).waitFor();
    expect(Number(await page.getByTestId("confirmed-total").textContent())).toBeGreaterThan(0);
    expect(Number(await page.getByTestId("p99-max").textContent())).toBeGreaterThanOrEqual(0);
    expect(await page.getByTestId("delivery-rate").textContent()).toMatch(/^\d+ %$/);
    await page.getByTestId("queue").getByText(String(hour.waiting.submitted)).first().waitFor();
    expect(await page.locator("svg.chart rect").count()).toBeGreaterThan(0);
    // The queue depth chart: a point per sampled minute, as many as the API answered (or one more, a minute later).
    const sampled = hour.buckets.filter((b) => b.waitingTransactions !== null);
    const peak = Math.max(...sampled.map((b) => b.waitingTransactions ?? 0));
    await page.getByTestId("queued-buckets").waitFor();
    expect(Number(await page.getByTestId("queued-buckets").textContent())).toBeGreaterThanOrEqual(sampled.length);
    expect(Number(await page.getByTestId("queued-max").textContent())).toBeGreaterThanOrEqual(peak);
    expect(await page.locator('svg.chart[aria-label*="unfinished transactions"] circle').count()).toBeGreaterThanOrEqual(2 * sampled.length);
    await page.screenshot({ path: join(SCREENSHOTS, "console-activity.png"), fullPage: true });

    await page.getByRole("button", { name: "Last day" }).click();
    expect(await page.getByRole("button", { name: "Last day" }).getAttribute("aria-pressed")).toBe("true");
    const day = await api("day");
    await page.getByTestId("accepted-total").filter({ hasText: String(day.buckets.reduce((n, b) => n + b.accepted, 0)) }).waitFor();
    await page.close();
  });

  it("opens any project, read only, with the operator's ADMIN_TOKEN", async () => {
    const page = await browser.context.newPage();
    await logIn(page, other, ADMIN_TOKEN);
    await page.getByText("No transactions match.").waitFor();
    // Another project, without giving the token again.
    await page.getByRole("button", { name: "Switch project" }).click();
    await pickProject(page, project);
    const first = page.locator("tr[data-transaction-id]").first();
    await first.waitFor();
    await page.getByText("Operator (read only)").waitFor();
    await first.getByRole("link").click();
    await page.getByText("The admin token reads only").waitFor();
    expect(await page.getByRole("button", { name: "Cancel" }).isDisabled()).toBe(true);
    expect(await page.content()).not.toContain(ADMIN_TOKEN);
    await page.close();
  });

  it("is used with the keyboard alone: skip link first, then the pages' links, a transaction opened with Enter", async () => {
    await sendTransaction(gatewayUrl, project.apiKey, spend(7));
    const page = await browser.context.newPage();
    await logIn(page, project);
    await page.locator("tr[data-transaction-id]").first().waitFor();
    const focused = () => page.evaluate("document.activeElement && document.activeElement.textContent.trim()");
    await page.locator("body").focus();
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("Skip to content");
    // The focus ring is drawn (outline from :focus-visible), not left to the browser's default.
    expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("Transactions");
    await page.keyboard.press("Tab");
    expect(await focused()).toBe("Wallets");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Wallets" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { name: "Transactions" }).waitFor();
    const link = page.locator("tr[data-transaction-id] a").first();
    const id = await link.textContent();
    await link.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: new RegExp(`Transaction ${id}`) }).waitFor();
    await page.close();
  });

  it("fits a phone's screen", async () => {
    await sendTransaction(gatewayUrl, project.apiKey, spend(9));
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await logIn(page, project);
    await page.locator("tr[data-transaction-id]").first().waitFor();
    const overflow = await page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth");
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, "console-phone.png") });
    await page.close();
  });
});
