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
  "previousEncryptedSecret",
  "*.previousEncryptedSecret",
  "previousSecret",
  "*.previousSecret",
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
  "pin",
  "*.pin",
  "HSM_PIN",
  "*.HSM_PIN",
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
  return settings.destination ? pino(options, settings.destination) : pino(options);
}

/**
 * Ends the logger's stream once every line written so far is out, in order; for the last moment
 * of a process. pino's default stdout stream is asynchronous, and its own flush at exit writes the
 * buffered lines while an earlier write may still be in flight: the last lines came out of order.
 */
export function endLogger(logger: Logger, timeoutMs = 2000): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    | { end?: () => void; once?: (event: string, fn: () => void) => void; destroyed?: boolean }
    | undefined;
  if (!stream || stream === process.stdout || typeof stream.end !== "function" || typeof stream.once !== "function" || stream.destroyed) {
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    stream.once!("close", () => {
      clearTimeout(timer);
      resolve();
    });
    stream.end!();
  });
}
