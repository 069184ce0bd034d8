export { AppError, isAppError, toError } from "./errors";
export type { AppErrorOptions, ErrorCode } from "./errors";
export { createLogger, endLogger, REDACT_PATHS } from "./logger";
export type { Logger, LoggerSettings } from "./logger";
export { generateApiKey, hashSecret, parseApiKey, secretMatches } from "./api-key";
export type { NewApiKey } from "./api-key";
export { CLOSE_MARGIN_MS, runProcess } from "./process";
export type { RunningApp } from "./process";
export { operatorTokenMatches, presentedToken } from "./operator-token";
