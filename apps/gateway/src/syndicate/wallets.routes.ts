import { Router } from "express";
import { z } from "zod";
import { AppError } from "@relay/core";
import {
  changeWithAudit,
  createChainRepository,
  createWalletRepository,
  createWalletRowsRepository,
  type AuditAction,
  type AuditEntry,
  type WalletChange,
  type WalletRecord,
  type WalletRepository,
  type WalletRowsRepository,
} from "@relay/db";
import type { GatewayDeps } from "../app";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { requestIdOf } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import { projectIdParam } from "../http-schemas";
import { createCreateWalletService, type CreateWalletService } from "../services/create-wallet.service";
import { createWalletRequest, retireWalletRequest, toggleIsActiveRequest, walletsQuery } from "./wallets.schema";
import { toggledRow, toWalletResponse } from "./wallets.response";

export interface WalletRoutesDeps {
  wallets: Pick<WalletRepository, "findByAddress">;
  rows: Pick<WalletRowsRepository, "listByProject">;
  createWallet: CreateWalletService;
  /** Changes a wallet and records it in the audit log, in one database transaction (docs/audit.md). */
  changeWallet: <T>(change: (wallets: Pick<WalletRepository, "setActive" | "retire">) => Promise<T>, entryOf: (result: T) => AuditEntry | null) => Promise<T>;
}

/** The entry of a change an API key made, or none when nothing changed. */
const entryOf =
  (keyId: string, action: (wallet: WalletRecord) => AuditAction) =>
  (change: WalletChange): AuditEntry | null =>
    change.kind === "changed"
      ? { actor: { type: "api_key", id: keyId }, action: action(change.wallet), projectId: change.wallet.projectId, walletAddress: change.wallet.address, subject: change.wallet.id }
      : null;

const isUuid = (value: unknown): value is string => z.uuid().safeParse(value).success;

/** Another project's key is told so (403) whatever else is wrong with the body, as sendTransaction does. */
function bodyOf(req: { body: unknown }, locals: Record<string, unknown>): Record<string, unknown> {
  const body = requireJsonObject(req.body);
  if (isUuid(body.projectId)) assertProjectAccess(principalOf(locals), body.projectId.toLowerCase());
  return body;
}

const notFound = (projectId: string, address: string) => new AppError("NOT_FOUND", `No wallet ${address} in project ${projectId}`);

/** Syndicate's wallet management: list, create, deactivate/reactivate and retire (docs/syndicate.md, "Wallets"). */
export function walletRoutes(deps: WalletRoutesDeps): Router {
  const router = Router();

  router.get("/wallet/project/:projectId/wallets", async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const { withData } = parseOr(walletsQuery, req.query);
    const rows = await deps.rows.listByProject(projectId, { withData });
    res.json(rows.map(toWalletResponse));
  });

  router.post("/wallet/create", async (req, res) => {
    const request = parseOr(createWalletRequest, bodyOf(req, res.locals));
    assertProjectAccess(principalOf(res.locals), request.projectId);
    res.json(await deps.createWallet.create(request, { reqId: requestIdOf(req), keyId: principalOf(res.locals).keyId }));
  });

  router.post("/wallet/toggleIsActive", async (req, res) => {
    const { projectId, walletAddress } = parseOr(toggleIsActiveRequest, bodyOf(req, res.locals));
    const principal = principalOf(res.locals);
    assertProjectAccess(principal, projectId);
    // Flipped from what it is now: two toggles at once read the same state, and both flip to the
    // same value, so the wallet ends in one state, not back where it started.
    const current = await deps.wallets.findByAddress(walletAddress);
    if (!current || current.projectId !== projectId) throw notFound(projectId, walletAddress);
    const change = await deps.changeWallet(
      (wallets) => wallets.setActive(projectId, walletAddress, !current.isActive),
      entryOf(principal.keyId, (w) => (w.isActive ? "wallet.activated" : "wallet.deactivated")),
    );
    const changed = settled(change, projectId, walletAddress, "activated");
    const rows = await deps.rows.listByProject(projectId, { withData: false });
    res.json(toWalletResponse(toggledRow(changed, rows)));
  });

  router.post("/wallet/retire", async (req, res) => {
    const { projectId, walletAddress, gasRecipient } = parseOr(retireWalletRequest, bodyOf(req, res.locals));
    const principal = principalOf(res.locals);
    assertProjectAccess(principal, projectId);
    if (gasRecipient !== undefined) {
      throw new AppError(
        "BAD_REQUEST",
        "gasRecipient is not supported: the relay does not send a retired wallet's funds anywhere. Retire without it, then recover the funds with `npm run relay -- wallets export-key` (docs/wallets.md, \"Recovering a retired wallet's funds\")",
      );
    }
    const change = await deps.changeWallet((wallets) => wallets.retire(projectId, walletAddress), entryOf(principal.keyId, () => "wallet.retired"));
    // Retiring a retired wallet changes nothing, records nothing, and answers the same.
    if (change.kind === "not-found") throw notFound(projectId, walletAddress);
    res.json({ projectId, walletAddress: change.wallet.address });
  });

  return router;
}

function settled(change: WalletChange, projectId: string, address: string, what: string) {
  if (change.kind === "not-found") throw notFound(projectId, address);
  if (change.kind === "retired") {
    throw new AppError("BAD_REQUEST", `walletAddress ${address} is retired: a retired wallet is never ${what} again; create a new wallet with POST /wallet/create`);
  }
  return change.wallet;
}

/** The wallet routes on the gateway's own dependencies (app.ts mounts them with one line). */
export function syndicateWalletRoutes(deps: Pick<GatewayDeps, "db" | "sql" | "producer" | "walletResults" | "logger" | "settings">): Router {
  const wallets = createWalletRepository(deps.db);
  const results = deps.walletResults ?? {
    expect: () => Promise.reject(new AppError("INTERNAL", "this gateway was started without a waiter for wallet creation")),
  };
  return walletRoutes({
    wallets,
    rows: createWalletRowsRepository(deps.sql),
    changeWallet: (change, entry) => changeWithAudit(deps.db, (tx) => change(createWalletRepository(tx)), entry),
    createWallet: createCreateWalletService({
      chains: createChainRepository(deps.db),
      producer: deps.producer,
      results,
      timeoutMs: deps.settings.signTimeoutMs,
      logger: deps.logger,
    }),
  });
}
