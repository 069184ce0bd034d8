/**
 * A value read from a chain that every job of this worker may share while it is younger than
 * `maxAgeMs`: concurrent callers wait for one read instead of each making its own, and a failed
 * read is not kept.
 */
export function sharedValue<T>(maxAgeMs: number, read: () => Promise<T>, now: () => number = Date.now) {
  let cached: { value: T; at: number } | undefined;
  let inFlight: Promise<T> | undefined;
  return (): Promise<T> => {
    if (cached && now() - cached.at < maxAgeMs) return Promise.resolve(cached.value);
    inFlight ??= read().then(
      (value) => {
        cached = { value, at: now() };
        inFlight = undefined;
        return value;
      },
      (error: unknown) => {
        inFlight = undefined;
        throw error;
      },
    );
    return inFlight;
  };
}

/** sharedValue per key (a wallet's nonce or balance), at most `maxKeys` remembered. */
export function sharedValues<K, T>(maxAgeMs: number, read: (key: K) => Promise<T>, now: () => number = Date.now, maxKeys = 10_000) {
  const values = new Map<K, () => Promise<T>>();
  return (key: K): Promise<T> => {
    let value = values.get(key);
    if (!value) {
      if (values.size >= maxKeys) values.clear();
      value = sharedValue(maxAgeMs, () => read(key), now);
      values.set(key, value);
    }
    return value();
  };
}
