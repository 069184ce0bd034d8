import type { JsonRpcProvider } from "ethers";

export interface CodePresenceSettings {
  /** How long "there is code" is believed: code stays (EIP-6780 left selfdestruct removing it only in the creating transaction). */
  presentMs: number;
  /** How long "no code" is believed: a contract deployed meanwhile is seen after this. */
  absentMs: number;
  maxKeys?: number;
}

/**
 * Whether an address holds contract code on the chain (eth_getCode at the latest block), one read
 * per address shared by every job of the worker: concurrent callers wait for one read, a failed
 * read is not kept. A yes is kept long, a no only briefly (a contract may be deployed next block).
 */
export function createCodePresence(provider: Pick<JsonRpcProvider, "getCode">, settings: CodePresenceSettings, now: () => number = Date.now) {
  const known = new Map<string, { present: boolean; at: number }>();
  const reading = new Map<string, Promise<boolean>>();
  const maxKeys = settings.maxKeys ?? 10_000;
  return (address: string): Promise<boolean> => {
    const key = address.toLowerCase();
    const entry = known.get(key);
    if (entry && now() - entry.at < (entry.present ? settings.presentMs : settings.absentMs)) return Promise.resolve(entry.present);
    let read = reading.get(key);
    if (!read) {
      read = provider.getCode(address, "latest").then((code) => code !== "0x" && code !== "");
      reading.set(key, read);
      read.then(
        (present) => {
          if (known.size >= maxKeys) known.clear();
          known.set(key, { present, at: now() });
          reading.delete(key);
        },
        () => reading.delete(key),
      );
    }
    return read;
  };
}
