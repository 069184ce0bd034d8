/**
 * How long the outbox dispatcher rests before its next claim: not at all after a full batch (more
 * is waiting); `idleMs` after a batch that claimed something; after an empty claim, twice the last
 * rest, up to `quietMs`. A busy outbox is claimed every `idleMs`; a quiet one costs one claim per
 * `quietMs`, and its first event after the quiet waits at most that long.
 */
export function nextRest(lastRestMs: number, claimed: { full: boolean; any: boolean }, settings: { idleMs: number; quietMs: number }): number {
  if (claimed.full) return 0;
  if (claimed.any) return settings.idleMs;
  return Math.min(settings.quietMs, Math.max(settings.idleMs, lastRestMs * 2));
}
