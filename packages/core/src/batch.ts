import DataLoader from "dataloader";

export interface BatcherOptions {
  /** At most this many keys go into one statement. */
  maxBatchSize: number;
  /** At most this many statements of this kind run at once; calls made meanwhile wait and join one batch. */
  maxInFlight: number;
}

/**
 * Coalesces single-row calls into one statement per batch, sized by load rather than by a timer:
 * while `maxInFlight` statements run, new calls queue up, and the queue goes out as one batch as
 * soon as a statement finishes. Under light load a call goes out alone at once (no added
 * latency); under heavy load one round trip and one commit serve many calls.
 *
 * `run` answers every key in order, with a value or an Error for that key alone; a rejected
 * `run` fails every call of its batch. Nothing is cached: every call reaches the database.
 */
export function createBatcher<K, V>(run: (keys: readonly K[]) => Promise<ArrayLike<V | Error>>, options: BatcherOptions): (key: K) => Promise<V> {
  let inFlight = 0;
  const held: (() => void)[] = [];
  const start = (dispatch: () => void) => {
    inFlight++;
    dispatch();
  };
  const loader = new DataLoader<K, V>(
    async (keys) => {
      try {
        return await run(keys);
      } finally {
        inFlight--;
        const next = held.shift();
        if (next) start(next);
      }
    },
    {
      cache: false,
      maxBatchSize: options.maxBatchSize,
      // Called when a new batch opens. Calls in the same tick always join it; when every slot is
      // busy it stays open (collecting calls) until a running statement finishes.
      batchScheduleFn: (dispatch) => {
        if (inFlight < options.maxInFlight) {
          inFlight++;
          process.nextTick(dispatch);
        } else held.push(dispatch);
      },
    },
  );
  return (key) => loader.load(key);
}
