import type { OpenAPIRegistry, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorBody, projectIdParam } from "../http-schemas";
import { signatureIdParams } from "../routes/personal-sign.schema";
import { readContractRequest, readContractResponse } from "./call.schema";
import { messageSignature, signaturePageQuery, signTypedDataRequest, signTypedDataResponse, typedSignature } from "./signing.schema";

const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });

/** What every authenticated route shares in the document (openapi.ts). */
export interface SharedDescriptions {
  secured: RouteConfig["security"];
  common: RouteConfig["responses"];
  badId: RouteConfig["responses"][string];
}

/** Syndicate's typed-data signing, its signature reads and POST /transact/call (docs/syndicate.md). */
export function registerSyndicateSigningPaths(registry: OpenAPIRegistry, { secured, common, badId }: SharedDescriptions): void {
  registry.registerPath({
    method: "post",
    path: "/wallet/project/{projectId}/signTypedData",
    summary: "Sign EIP-712 typed data with a project wallet (Syndicate's signTypedData)",
    security: secured,
    request: { params: projectIdParam, body: { content: { "application/json": { schema: signTypedDataRequest } } } },
    responses: {
      200: json(signTypedDataResponse, "Signed; `ethers.verifyTypedData(domain, types without EIP712Domain, message, signature)` returns signerAddress"),
      400: json(errorBody, "Signature Error: the domain, types, primaryType or message is wrong (the message names the field), signerAddress is not a wallet of the project, or signatureId reused"),
      500: json(errorBody, "Signing could not complete in time; nothing was stored"),
      ...common,
    },
  });
  const page = { params: projectIdParam, query: signaturePageQuery };
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/signature/{signatureId}",
    summary: "Read a typed-data signature (Syndicate's Signature)",
    security: secured,
    request: { params: signatureIdParams },
    responses: { 200: json(typedSignature, "The signature and what it signed"), 400: badId, 404: json(errorBody, "No typed-data signature with this id in this project"), ...common },
  });
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/signatures",
    summary: "The project's typed-data signatures, newest first",
    security: secured,
    request: page,
    responses: { 200: json(z.array(typedSignature), "A page of signatures"), 400: json(errorBody, "page or limit is wrong, or projectId is not a UUID"), ...common },
  });
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/personalSignature/{signatureId}",
    summary: "Read a personal signature (Syndicate's MessageSignature)",
    security: secured,
    request: { params: signatureIdParams },
    responses: { 200: json(messageSignature, "The signature and its message"), 400: badId, 404: json(errorBody, "No personal signature with this id in this project"), ...common },
  });
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/personalSignatures",
    summary: "The project's personal signatures, newest first",
    security: secured,
    request: page,
    responses: { 200: json(z.array(messageSignature), "A page of signatures"), 400: json(errorBody, "page or limit is wrong, or projectId is not a UUID"), ...common },
  });
  registry.registerPath({
    method: "post",
    path: "/transact/call",
    summary: "Call a view function and answer its decoded result (Syndicate's Call View Function)",
    description: "eth_call at the latest block through the chain's RPC URLs, in order; nothing is stored or signed. Any project's key may call it.",
    security: secured,
    request: { body: { content: { "application/json": { schema: readContractRequest } } } },
    responses: {
      200: json(readContractResponse, "The decoded result"),
      400: json(errorBody, "A field, the function signature or an argument is wrong (the message names it), the chain is unknown, the call reverted (with its reason), or its answer does not decode"),
      503: json(errorBody, "None of the chain's RPC endpoints answered in time; retry later"),
      // Any project's key may call it: no project is named, so none can be another's (no 403).
      ...withoutForbidden(common),
    },
  });
}

function withoutForbidden<T extends Record<number, unknown>>(responses: T): Omit<T, 403> {
  const { 403: _forbidden, ...rest } = responses;
  return rest;
}
