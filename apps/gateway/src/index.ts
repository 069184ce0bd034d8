export { createApp } from "./app";
export type { GatewayDeps } from "./app";
export { buildOpenApiDocument } from "./openapi";
export { answerClientErrorsAsJson } from "./client-errors";
export { createHttpServer, gatewayHttpTimeouts, type HttpTimeouts } from "./http-server";
