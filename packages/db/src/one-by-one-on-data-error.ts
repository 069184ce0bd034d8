import { toError } from "@relay/core";

const codeOf = (e: unknown): string | undefined => (toError(e) as { code?: string }).code;

/**
 * A batch statement for coalesced calls (createBatcher) that Postgres refuses for its data (a
 * row's foreign key, a value out of range: SQL states of classes 22 and 23) is tried again one key
 * at a time, so one bad request fails alone rather than taking its batch with it. Any other
 * failure (Postgres unreachable) fails the batch.
 */
export function oneByOneOnDataError<K, V>(many: (keys: readonly K[]) => Promise<V[]>): (keys: readonly K[]) => Promise<(V | Error)[]> {
  const alone = async (key: K): Promise<V> => (await many([key]))[0]!;
  return async (keys) => {
    try {
      return await many(keys);
    } catch (e) {
      if (keys.length === 1 || !/^2[23]/.test(codeOf(e) ?? "")) throw e;
      return Promise.all(keys.map((key) => alone(key).catch(toError)));
    }
  };
}
