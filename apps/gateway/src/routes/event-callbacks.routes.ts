import { Router } from "express";
import { AppError } from "@relay/core";
import {
  DELETED_REASON,
  type EventCallbackRecord,
  type EventCallbackRepository,
  type EventCallbackStatRecord,
  type EventCallbackWithSecret,
  type SecretRotation,
} from "@relay/db";
import type { Kek } from "@relay/secrets";
import { checkCallbackUrl, generateWebhookSecret, openWebhookSecret, sealPreviousWebhookSecret, sealWebhookSecret } from "@relay/webhooks";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import { projectIdParam } from "../http-schemas";
import { eventCallbackParams, eventCallbackRequest } from "./event-callbacks.schema";

export interface EventCallbackRoutesDeps {
  callbacks: EventCallbackRepository;
  keyring: Kek;
  /** How long deliveries are also signed with the secret a rotation replaces; 0: not at all. */
  rotationGraceMs: number;
  /** Active registrations a project may have; one more is a 400. */
  maxPerProject: number;
  production: boolean;
  /** Stats entries returned per registration in a listing. */
  recentStats?: number;
}

const toStat = (s: EventCallbackStatRecord) => ({
  createdAt: s.createdAt.toISOString(),
  data: s.data,
  eventCallbackId: s.eventCallbackId,
  responseStatus: s.responseStatus,
});

const view = (c: EventCallbackRecord) => ({
  callbackURL: c.callbackUrl,
  eventType: c.eventType,
  id: c.id,
  projectId: c.projectId,
  disabled: c.disabledAt !== null,
  disabledReason: c.disabledReason,
});

/**
 * Registration of event callbacks (the contract's endpoint 3) with Bearer auth like the others,
 * and the project's list, delete and secret rotation. The secret is shown when created or rotated
 * and stored sealed under the webhook key.
 */
export function eventCallbackRoutes(deps: EventCallbackRoutesDeps): Router {
  const router = Router();
  const base = "/webhook/project/:projectId";

  router.post(`${base}/eventCallback`, async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const body = parseOr(eventCallbackRequest, requireJsonObject(req.body));
    const problem = checkCallbackUrl(body.callbackURL, { production: deps.production });
    if (problem) throw new AppError("BAD_REQUEST", problem);
    const secret = generateWebhookSecret();
    const created = await deps.callbacks.createWithin(deps.maxPerProject, {
      projectId,
      callbackUrl: body.callbackURL,
      eventType: body.eventType,
      sealSecret: (id) => sealWebhookSecret(deps.keyring, id, secret),
    });
    if (!created) {
      throw new AppError(
        "BAD_REQUEST",
        `project ${projectId} has ${deps.maxPerProject} active event callbacks, the most allowed: delete one (DELETE ${base.replace(":projectId", projectId)}/eventCallback/{id}) before adding another`,
      );
    }
    linkLogIds(res, { eventCallbackId: created.id });
    res.json({ callbackURL: created.callbackUrl, eventType: created.eventType, id: created.id, projectId, secret, stats: [] });
  });

  router.get(`${base}/eventCallbacks`, async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const list = await deps.callbacks.listByProject(projectId, { recentStats: deps.recentStats ?? 20 });
    res.json(list.map((c) => ({ ...view(c), stats: c.stats.map(toStat) })));
  });

  const owned = async (projectId: string, eventCallbackId: string) => {
    const found = await deps.callbacks.findById(eventCallbackId);
    if (!found || found.projectId !== projectId || found.disabledReason === DELETED_REASON) throw new AppError("NOT_FOUND", `No event callback ${eventCallbackId} in project ${projectId}`);
    return found;
  };

  router.delete(`${base}/eventCallback/:eventCallbackId`, async (req, res) => {
    const { projectId, eventCallbackId } = parseOr(eventCallbackParams, req.params);
    linkLogIds(res, { eventCallbackId });
    assertProjectAccess(principalOf(res.locals), projectId);
    await owned(projectId, eventCallbackId);
    await deps.callbacks.delete(eventCallbackId);
    res.json({ id: eventCallbackId, deleted: true });
  });

  router.post(`${base}/eventCallback/:eventCallbackId/rotateSecret`, async (req, res) => {
    const { projectId, eventCallbackId } = parseOr(eventCallbackParams, req.params);
    linkLogIds(res, { eventCallbackId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const found = await owned(projectId, eventCallbackId);
    const secret = generateWebhookSecret();
    const rotated = await deps.callbacks.rotateSecret(eventCallbackId, (current) => ({
      encryptedSecret: sealWebhookSecret(deps.keyring, current.id, secret),
      previous: retire(current),
    }));
    if (!rotated) throw new AppError("CONFLICT", `Event callback ${eventCallbackId} is disabled (${found.disabledReason ?? "meanwhile"}); register a new one`);
    res.json({ ...view(found), secret, previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null });
  });

  /**
   * The secret being replaced, re-sealed as the previous one until the grace period ends (a second
   * rotation within it replaces the previous secret: only one is kept). None without a grace
   * period, or when the current secret does not open (the worker could not sign with it either).
   */
  const retire = (current: EventCallbackWithSecret): SecretRotation["previous"] => {
    if (deps.rotationGraceMs <= 0) return null;
    let retiring: string;
    try {
      retiring = openWebhookSecret(deps.keyring, current);
    } catch (e) {
      if (e instanceof AppError && (e.code === "CRYPTO" || e.code === "CONFIG")) return null;
      throw e;
    }
    const expiresAt = new Date(Date.now() + deps.rotationGraceMs);
    return { encryptedSecret: sealPreviousWebhookSecret(deps.keyring, current.id, retiring, expiresAt), expiresAt };
  };

  return router;
}
