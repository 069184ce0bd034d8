/**
 * A circuit breaker per registration, in this process: after `afterTimeouts` attempts in a row to
 * one registration got no answer within the time-out, further attempts to it are not sent for
 * `openMs`; then one attempt (the probe) is sent, and its outcome closes the breaker (any answer,
 * or a failure that is not a time-out) or opens it again. A receiver that accepts connections
 * and never answers thus holds one of the process's delivery slots at a time, not all of them
 * (docs/webhooks.md, "Receivers that hang").
 *
 * Only time-outs count: a receiver that answers 500 or refuses the connection frees its slot at
 * once, and the retry schedule deals with it. Each replica learns on its own, from its own
 * attempts; nothing is shared and nothing is asked of Redis per delivery.
 *
 * Hand-written rather than opossum: that library wraps one function per breaker and keeps a
 * timer per instance for its rolling window, where this needs thousands of keys that cost nothing
 * while closed, and the time the breaker opens until (it is written in the skipped attempt's stats
 * entry).
 */
export interface ReceiverBreakerSettings {
  /** Time-outs in a row that open the breaker; 0 turns it off. */
  afterTimeouts: number;
  /** How long it stays open before the probe. */
  openMs: number;
  /** The per-attempt time-out, named in the message of a skipped attempt. */
  timeoutMs: number;
  /** At most this many registrations are tracked (those with a time-out as their last outcome); the oldest go first. */
  maxTracked?: number;
}

export type Admission = { send: true } | { send: false; message: string };

interface Tracked {
  timeouts: number;
  /** 0 while closed. */
  openUntil: number;
  /** Set while the probe is out: until then, others are not sent. */
  probeUntil: number;
}

const SEND: Admission = { send: true };

export function createReceiverBreaker(settings: ReceiverBreakerSettings, now: () => number = Date.now) {
  const maxTracked = settings.maxTracked ?? 10_000;
  const tracked = new Map<string, Tracked>();

  const skipped = (t: Tracked): Admission => ({
    send: false,
    message:
      `not sent: the last ${t.timeouts} attempts to this callback timed out (no answer within ${settings.timeoutMs} ms), ` +
      `so this worker sends it one attempt at a time until it answers again (next at ${new Date(Math.max(t.openUntil, t.probeUntil)).toISOString()}); ` +
      "this attempt counts as failed and is retried on the schedule",
  });

  return {
    /** Whether an attempt to `registrationId` is sent now; past the open period, the first caller is the probe. */
    admit(registrationId: string): Admission {
      const t = tracked.get(registrationId);
      if (!t || t.openUntil === 0) return SEND;
      const at = now();
      if (at < t.openUntil || at < t.probeUntil) return skipped(t);
      // The probe. Should its outcome never be recorded, another is let through once it would
      // have timed out, and not before the open period: one probe at a time.
      t.probeUntil = at + Math.max(settings.openMs, settings.timeoutMs);
      return SEND;
    },
    /** The outcome of an attempt that was sent. */
    record(registrationId: string, timedOut: boolean): void {
      if (settings.afterTimeouts <= 0) return;
      if (!timedOut) {
        tracked.delete(registrationId);
        return;
      }
      let t = tracked.get(registrationId);
      if (!t) {
        if (tracked.size >= maxTracked) tracked.delete(tracked.keys().next().value!);
        t = { timeouts: 0, openUntil: 0, probeUntil: 0 };
        tracked.set(registrationId, t);
      }
      t.timeouts++;
      const at = now();
      const probeFailed = t.probeUntil > 0;
      if (probeFailed || (t.openUntil === 0 && t.timeouts >= settings.afterTimeouts)) {
        t.openUntil = at + settings.openMs;
        t.probeUntil = 0;
      }
    },
  };
}

export type ReceiverBreaker = ReturnType<typeof createReceiverBreaker>;
