import pino, { type Logger, type LoggerOptions } from "pino";

export type { Logger } from "pino";

/**
 * Paths that must never reach a log line, wherever they appear in a logged object. Keys, secrets
 * and credentials are redacted even if a caller logs a whole row or request by mistake.
 */
export const REDACT_PATHS = [
  "privateKey",
  "*.privateKey",
  "encryptedKey",
  "*.encryptedKey",
  "encryptedSecret",
  "*.encryptedSecret",
  "secret",
  "*.secret",
  "secretHash",
  "*.secretHash",
  "apiKey",
  "*.apiKey",
  "token",
  "*.token",
  "kek",
  "*.kek",
  "authorization",
  "*.authorization",
  "req.headers.authorization",
  "req.headers.cookie",
  "headers.authorization",
  "DATABASE_URL",
  "REDIS_URL",
  "KEY_ENCRYPTION_KEY",
  "*.KEY_ENCRYPTION_KEY",
];

export interface LoggerSettings {
  name: string;
  level: string;
  /** A writable destination; tests pass one to capture and scan the output. */
  destination?: pino.DestinationStream;
}

/** The one root logger of an app; everything else uses `logger.child({...})`. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: { app: settings.name, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  // Synchronous stdout: pino's default asynchronous stream flushes what is buffered at exit while
  // an earlier write may still be in flight, so a stopping process's last lines came out of order.
  return pino(options, settings.destination ?? pino.destination({ dest: 1, sync: true }));
}
