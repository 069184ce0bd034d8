import { createWalletRepository } from "../repositories/wallet.repository";
import { createFixture, transactionTestContext } from "../transactions/test-fixtures";
import { changeWithAudit } from "./audited-change";

const ctx = transactionTestContext();
afterAll(() => ctx.close());

const isActive = async (address: string) => (await createWalletRepository(ctx.db).findByAddress(address))!.isActive;

test("the change and its entry commit together", async () => {
  const { projectId, wallets } = await createFixture(ctx.pool, 1);
  const address = wallets[0]!;
  await changeWithAudit(
    ctx.db,
    (tx) => createWalletRepository(tx).setActive(projectId, address, false),
    () => ({ actor: { type: "operator", id: "t" }, action: "wallet.deactivated", projectId, walletAddress: address }),
  );
  expect(await isActive(address)).toBe(false);
  expect(await ctx.db.auditLog.count({ where: { walletAddress: address, action: "wallet.deactivated" } })).toBe(1);
});

test("a change whose entry cannot be written is rolled back", async () => {
  const { projectId, wallets } = await createFixture(ctx.pool, 1);
  const address = wallets[0]!;
  // An actor type the table's CHECK refuses: the entry's INSERT fails.
  const bad = { actor: { type: "nobody", id: "t" }, action: "wallet.deactivated", projectId, walletAddress: address } as never;
  await expect(changeWithAudit(ctx.db, (tx) => createWalletRepository(tx).setActive(projectId, address, false), () => bad)).rejects.toThrow();
  expect(await isActive(address)).toBe(true);
  expect(await ctx.db.auditLog.count({ where: { walletAddress: address } })).toBe(0);
});

test("a change that changed nothing records nothing", async () => {
  const { projectId, wallets } = await createFixture(ctx.pool, 1);
  const address = wallets[0]!;
  await createWalletRepository(ctx.db).retire(projectId, address);
  const change = await changeWithAudit(
    ctx.db,
    (tx) => createWalletRepository(tx).setActive(projectId, address, true),
    (c) => (c.kind === "changed" ? { actor: { type: "operator", id: "t" }, action: "wallet.activated", projectId, walletAddress: address } : null),
  );
  expect(change.kind).toBe("retired");
  expect(await ctx.db.auditLog.count({ where: { walletAddress: address } })).toBe(0);
});
