import { InvalidArgumentError } from "commander";

const UNITS_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A point in time for --since/--until: an ISO 8601 time (`2026-11-27T10:00:00Z`, `2026-11-27`), or
 * a span back from now (`30m`, `24h`, `7d`).
 */
export const parseTimeArg =
  (what: string, now: () => number = Date.now) =>
  (value: string): Date => {
    const relative = /^(\d{1,6})([smhdw])$/.exec(value.trim());
    if (relative) return new Date(now() - Number(relative[1]) * UNITS_MS[relative[2]!]!);
    const at = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim()) ? new Date(value.trim()) : new Date(NaN);
    if (Number.isNaN(at.getTime())) {
      throw new InvalidArgumentError(`${what} must be an ISO time (2026-11-27T10:00:00Z) or a span back from now (30m, 24h, 7d).`);
    }
    return at;
  };
