/**
 * An outbox payload as it is sent today, whenever it was stored. Events written by an earlier
 * version carry `data.chainId` as a decimal string; receivers are promised a number, so a row
 * stored before the upgrade (or by a replica not yet upgraded during a rolling deploy) is
 * delivered in today's shape. Converting on delivery rather than migrating the rows covers both,
 * and costs nothing per row of a large outbox history. Anything else is passed through unchanged.
 */
export function currentPayload(payload: unknown): unknown {
  if (!isObject(payload) || !isObject(payload.data)) return payload;
  const chainId = payload.data.chainId;
  if (typeof chainId !== "string" || !/^[1-9][0-9]{0,15}$/.test(chainId) || !Number.isSafeInteger(Number(chainId))) return payload;
  return { ...payload, data: { ...payload.data, chainId: Number(chainId) } };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
