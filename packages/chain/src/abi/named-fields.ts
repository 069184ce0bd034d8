import type { ParamType } from "ethers";
import { badRequest, childPath, nameList } from "./describe-value";

/**
 * `args`, and a tuple value given as an object, map keys to fields (a function's parameters, a
 * tuple's components) by name or by decimal index, so `{"to": …}` and `{"0": …}` mean the same;
 * a field without a name can only be given by index. Each field exactly once: a typo is an
 * unknown key rather than a silently missing value.
 */
export interface Field {
  type: ParamType;
  value: unknown;
  path: string;
}

export interface FieldOwner {
  /** "parameter" or "component", for messages. */
  noun: string;
  /** The function or tuple the fields belong to, for "is not a parameter of …". */
  label: string;
}

/** "0", "1", …: no sign, no leading zeros, short enough that Number() is exact. */
const INDEX = /^(0|[1-9][0-9]{0,5})$/;

export const fieldPath = (path: string, field: ParamType, index: number): string =>
  childPath(path, field.name || String(index));

export function fieldValues(
  object: Record<string, unknown>,
  fields: readonly ParamType[],
  path: string,
  owner: FieldOwner,
): Field[] {
  // A Map, not an object: names like "__proto__" or "constructor" must not meet the prototype.
  const byName = new Map<string, number>();
  fields.forEach((field, index) => field.name && byName.set(field.name, index));

  const keyOf: (string | undefined)[] = fields.map(() => undefined);
  // Object.keys lists own properties only, including a "__proto__" that JSON.parse created.
  for (const key of Object.keys(object)) {
    const index = INDEX.test(key) ? Number(key) : byName.get(key);
    const field = index === undefined ? undefined : fields[index];
    if (index === undefined || field === undefined) {
      throw badRequest(`${childPath(path, key)} is not a ${owner.noun} of ${owner.label}; ${accepted(fields, owner.noun)}`);
    }
    const earlier = keyOf[index];
    if (earlier !== undefined) {
      throw badRequest(`${fieldPath(path, field, index)} is given twice, as "${earlier}" and as "${key}"`);
    }
    keyOf[index] = key;
  }

  return fields.map((field, index) => {
    const key = keyOf[index];
    if (key === undefined) throw badRequest(`${fieldPath(path, field, index)} is missing`);
    return { type: field, value: object[key], path: fieldPath(path, field, index) };
  });
}

/**
 * What the keys may be, for a key that is none of them: each field by name and index, so a typo
 * (`Amount`) and a name the signature does not have (`set(uint256)` given `newValue`) both show
 * the way out.
 */
function accepted(fields: readonly ParamType[], noun: string): string {
  if (fields.length === 0) return `it takes no ${noun}s`;
  const keys = fields.map((field, index) => (field.name ? `${field.name} or ${index} (${field.type})` : `${index} (${field.type}, unnamed: by index only)`));
  // Shorter than other lists: the message also quotes the function or path it belongs to.
  return `its ${noun}s, by name or index: ${nameList(keys, 100)}`;
}
