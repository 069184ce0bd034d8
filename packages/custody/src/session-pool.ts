/**
 * A fixed set of sessions, each lent to one caller at a time: a PKCS#11 session runs one
 * operation at a time (C_SignInit, then C_Sign), so concurrent signatures each need their own.
 */
export function createSessionPool<S>(sessions: S[]) {
  const free = [...sessions];
  const waiting: Array<(session: S) => void> = [];
  const release = (session: S) => {
    const next = waiting.shift();
    if (next) next(session);
    else free.push(session);
  };
  return {
    use: async <T>(work: (session: S) => Promise<T> | T): Promise<T> => {
      const session = free.pop() ?? (await new Promise<S>((resolve) => waiting.push(resolve)));
      try {
        return await work(session);
      } finally {
        release(session);
      }
    },
  };
}
