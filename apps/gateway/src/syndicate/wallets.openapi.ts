import type { OpenAPIRegistry, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { errorBody, projectIdParam } from "../http-schemas";
import {
  createWalletRequest,
  createWalletResponse,
  retireWalletRequest,
  retireWalletResponse,
  toggleIsActiveRequest,
  walletResponse,
  walletsQuery,
  walletWithDataResponse,
} from "./wallets.schema";

type Responses = RouteConfig["responses"];
const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });

/** Syndicate's wallet routes in the OpenAPI document (openapi.ts gives the security and common answers). */
export function registerWalletPaths(registry: OpenAPIRegistry, security: RouteConfig["security"], common: Responses): void {
  const notFound = json(errorBody, "No wallet with this address in the project");
  registry.registerPath({
    method: "get",
    path: "/wallet/project/{projectId}/wallets",
    summary: "List the project's wallets, one row per wallet and configured chain (Syndicate's getWalletsByProject)",
    security,
    request: { params: projectIdParam, query: walletsQuery },
    responses: {
      200: json(z.array(walletWithDataResponse), "Every wallet of the project on every configured chain, retired ones included; withData adds balance and txCount"),
      400: json(errorBody, "projectId is not a UUID, or withData is not true or false"),
      ...common,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/wallet/create",
    summary: "Create a wallet for the project: a new key, generated and sealed by the signing worker (Syndicate's createWallet)",
    security,
    request: { body: { content: { "application/json": { schema: createWalletRequest } } } },
    responses: {
      200: json(createWalletResponse, "Created; the wallet signs on every configured chain"),
      400: json(errorBody, "A field is wrong (the message names it), or chainId is not configured on this relay"),
      500: json(errorBody.extend({ projectId: z.uuid() }), "The signing worker did not answer in time (the wallet may appear in the list later, whole)"),
      ...common,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/wallet/toggleIsActive",
    summary: "Deactivate an active wallet or activate an inactive one (Syndicate's toggleIsActive)",
    security,
    request: { body: { content: { "application/json": { schema: toggleIsActiveRequest } } } },
    responses: {
      200: json(walletResponse, "The wallet as it is now, on the lowest configured chain id; the change applies on every chain within 5 seconds"),
      400: json(errorBody, "A field is wrong, or walletAddress is retired (never activated again)"),
      404: notFound,
      ...common,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/wallet/retire",
    summary: "Retire a wallet for good: never used again, never deleted (Syndicate's retireWallet)",
    security,
    request: { body: { content: { "application/json": { schema: retireWalletRequest } } } },
    responses: {
      200: json(retireWalletResponse, "Retired (or already retired); its funds stay on it, see docs/wallets.md"),
      400: json(errorBody, "A field is wrong, or gasRecipient was given (not supported)"),
      404: notFound,
      ...common,
    },
  });
}
