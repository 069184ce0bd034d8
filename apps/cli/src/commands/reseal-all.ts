import { AppError } from "@relay/core";

const PAGE = 200;

export interface ResealResult {
  resealed: number;
  /** Opened, and sealed under the active key already (or changed meanwhile by someone else). */
  current: number;
  /** Ids of the records whose sealed values do not open with the keyring. */
  unopened: string[];
}

/**
 * Walks every record a page at a time (in id order) and seals each again under the active key:
 * `reseal` opens it and answers the new sealed values, null when already current, and throws when
 * it does not open; `replace` writes them only if the record is unchanged meanwhile. A record that
 * does not open is listed and left as it is: the others are still re-sealed.
 */
export async function resealAll<R extends { id: string }, N>(
  list: (page: { after?: string; limit: number }) => Promise<R[]>,
  reseal: (record: R) => N | null,
  replace: (record: R, next: N) => Promise<boolean>,
): Promise<ResealResult> {
  const result: ResealResult = { resealed: 0, current: 0, unopened: [] };
  for (let after: string | undefined; ; ) {
    const page = await list({ ...(after ? { after } : {}), limit: PAGE });
    for (const record of page) {
      let next: N | null;
      try {
        next = reseal(record);
      } catch {
        result.unopened.push(record.id);
        continue;
      }
      if (next === null || !(await replace(record, next))) result.current++;
      else result.resealed++;
    }
    if (page.length < PAGE) return result;
    after = page[page.length - 1]!.id;
  }
}

/** The one-line failure of a reseal that left records it could not open: what to set, and to keep the old keys. */
export function unopenedError(
  result: ResealResult,
  names: { what: string; records: string },
  settings: { key: string; keyId: string; previous: string },
  activeKeyId: string,
): AppError {
  const shown = result.unopened.slice(0, 5).join(", ") + (result.unopened.length > 5 ? ", …" : "");
  return new AppError(
    "CONFIG",
    `${result.unopened.length} ${names.what} do not open with ${settings.key} and ${settings.previous} (${names.records} ${shown}): add the key they were sealed with to ${settings.previous} under its own id (a new ${settings.key} needs a new ${settings.keyId}) and run again; keep every old key until this succeeds (${result.resealed} re-sealed, ${result.current} already under ${activeKeyId})`,
  );
}
