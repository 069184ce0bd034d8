import { randomUUID } from "node:crypto";
import { Router } from "express";
import { AppError } from "@relay/core";
import { kindOf, typedDataText, type SignatureRepository } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds, requestIdOf } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import { projectIdParam } from "../http-schemas";
import { decodeMessage, type PersonalSignService } from "../services/personal-sign.service";
import { personalSignRequest, signatureIdParams } from "./personal-sign.schema";

export interface PersonalSignRoutesDeps {
  personalSign: PersonalSignService;
  signatures: Pick<SignatureRepository, "findById">;
}

/** POST personalSign (the contract's endpoint 2) and a project-scoped read of a stored signature. */
export function personalSignRoutes(deps: PersonalSignRoutesDeps): Router {
  const router = Router();

  router.post("/wallet/project/:projectId/personalSign", async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params, "SIGNATURE_ERROR");
    const principal = principalOf(res.locals);
    assertProjectAccess(principal, projectId);
    const body = parseOr(personalSignRequest, requireJsonObject(req.body, "SIGNATURE_ERROR"), "SIGNATURE_ERROR");
    const signatureId = body.signatureId ?? randomUUID();
    linkLogIds(res, { signatureId });
    res.json(await deps.personalSign.sign(projectId, { ...body, signatureId }, { reqId: requestIdOf(req), keyId: principal.keyId }));
  });

  router.get("/wallet/project/:projectId/signatures/:signatureId", async (req, res) => {
    const { projectId, signatureId } = parseOr(signatureIdParams, req.params);
    linkLogIds(res, { signatureId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const record = await deps.signatures.findById(projectId, signatureId);
    if (!record) {
      throw new AppError("NOT_FOUND", `No signature ${signatureId} in project ${projectId}`);
    }
    res.json({
      signatureId: record.id,
      projectId: record.projectId,
      signerAddress: record.signerAddress,
      // A typed-data record (signTypedData) holds its request as JSON text after a mark byte.
      message: kindOf(record.message) === "TYPED_DATA" ? typedDataText(record.message) : decodeMessage(record.message),
      status: record.status,
      signature: record.signature,
      createdAt: record.createdAt.toISOString(),
      signedAt: record.signedAt?.toISOString() ?? null,
    });
  });

  return router;
}
