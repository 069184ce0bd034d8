export { createApp } from "./app";
export type { GatewayDeps } from "./app";
export { buildOpenApiDocument } from "./openapi";
