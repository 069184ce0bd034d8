import { randomUUID } from "node:crypto";
import { Router, type Request, type Response } from "express";
import { AppError } from "@relay/core";
import { kindOf, type SignatureKind, type SignatureRepository, type SignatureWithSigner } from "@relay/db";
import { assertProjectAccess, principalOf } from "../middleware/auth";
import { linkLogIds, requestIdOf } from "../middleware/request-log";
import { parseOr, requireJsonObject } from "../middleware/validate";
import { projectIdParam } from "../http-schemas";
import { signatureIdParams } from "../routes/personal-sign.schema";
import { decodeMessage, type PersonalSignService } from "../services/personal-sign.service";
import { signaturePageQuery, signTypedDataRequest } from "./signing.schema";
import { messageSignatureOf, typedSignatureOf } from "./signing.response";

export interface SyndicateSigningRoutesDeps {
  personalSign: Pick<PersonalSignService, "signTypedData">;
  signatures: Pick<SignatureRepository, "findById" | "listSigned">;
}

/**
 * Syndicate's typed-data signing and its signature reads: POST signTypedData; GET one typed-data
 * signature (/signature/{id}) or a page of them (/signatures); the same for personal signatures
 * (/personalSignature/{id}, /personalSignatures). A read answers only a SIGNED record of its kind:
 * anything else is a 404, as Syndicate has no record of a signature not made.
 */
export function syndicateSigningRoutes(deps: SyndicateSigningRoutesDeps): Router {
  const router = Router();

  router.post("/wallet/project/:projectId/signTypedData", async (req, res) => {
    const { projectId } = parseOr(projectIdParam, req.params, "SIGNATURE_ERROR");
    const principal = principalOf(res.locals);
    assertProjectAccess(principal, projectId);
    const body = parseOr(signTypedDataRequest, requireJsonObject(req.body, "SIGNATURE_ERROR"), "SIGNATURE_ERROR");
    const signatureId = body.signatureId ?? randomUUID();
    linkLogIds(res, { signatureId });
    res.json(await deps.personalSign.signTypedData(projectId, { ...body, signatureId }, { reqId: requestIdOf(req), keyId: principal.keyId }));
  });

  const readOne = (kind: SignatureKind) => async (req: Request, res: Response) => {
    const { projectId, signatureId } = parseOr(signatureIdParams, req.params);
    linkLogIds(res, { signatureId });
    assertProjectAccess(principalOf(res.locals), projectId);
    const record = await deps.signatures.findById(projectId, signatureId);
    if (!record || kindOf(record.message) !== kind || record.status !== "SIGNED") {
      const what = kind === "TYPED_DATA" ? "typed-data signature" : "personal signature";
      throw new AppError("NOT_FOUND", `No ${what} ${signatureId} in project ${projectId}`);
    }
    res.json(present(record));
  };
  const readPage = (kind: SignatureKind) => async (req: Request, res: Response) => {
    const { projectId } = parseOr(projectIdParam, req.params);
    assertProjectAccess(principalOf(res.locals), projectId);
    const { page, limit } = parseOr(signaturePageQuery, req.query);
    res.json((await deps.signatures.listSigned(projectId, { kind, page, limit })).map(present));
  };

  router.get("/wallet/project/:projectId/signature/:signatureId", readOne("TYPED_DATA"));
  router.get("/wallet/project/:projectId/signatures", readPage("TYPED_DATA"));
  router.get("/wallet/project/:projectId/personalSignature/:signatureId", readOne("PERSONAL"));
  router.get("/wallet/project/:projectId/personalSignatures", readPage("PERSONAL"));
  return router;
}

const present = (record: SignatureWithSigner) => (kindOf(record.message) === "TYPED_DATA" ? typedSignatureOf(record) : messageSignatureOf(record, decodeMessage(record.message)));
