export { createApp } from "./app";
export type { GatewayDeps } from "./app";
export { buildOpenApiDocument } from "./openapi";
export { answerClientErrorsAsJson } from "./client-errors";
export { createHttpServer } from "./http-server";
