import type { ParamType } from "ethers";
import { badRequest, describeValue, elementPath, isPlainObject, nameList } from "./describe-value";
import { ABI_LIMITS } from "./limits";
import { fieldValues, type Field } from "./named-fields";
import { convertScalar } from "./scalar-value";

/**
 * A JSON value → the positional form of one ABI type, walking the type rather than the value: the
 * recursion can only go as deep as the declared type, and JSON nested anywhere else is simply a
 * value of the wrong kind. The result is JSON-storable and what ethers' coder takes as is.
 */
export type NormalizedValue = string | boolean | NormalizedValue[];

/** Counts values across one call, so nested arrays cannot multiply past the limit. */
export interface ConvertBudget {
  values: number;
}

export function convertValue(
  type: ParamType,
  value: unknown,
  path: string,
  depth: number,
  budget: ConvertBudget,
): NormalizedValue {
  if (++budget.values > ABI_LIMITS.values) {
    throw badRequest(`args has more than ${ABI_LIMITS.values} values in all (at ${path})`);
  }
  if (!type.isArray() && !type.isTuple()) return convertScalar(type.type, value, path);
  if (depth >= ABI_LIMITS.depth) {
    throw badRequest(`${path} nests arrays and tuples deeper than ${ABI_LIMITS.depth} levels`);
  }
  return type.isArray()
    ? convertArray(type, value, path, depth, budget)
    : convertTuple(type, value, path, depth, budget);
}

function convertArray(
  type: ParamType & { arrayChildren: ParamType; arrayLength: number },
  value: unknown,
  path: string,
  depth: number,
  budget: ConvertBudget,
): NormalizedValue[] {
  const fixed = type.arrayLength >= 0;
  if (!Array.isArray(value)) {
    throw badRequest(`${path} must be an array${fixed ? ` of ${type.arrayLength}` : ""}; got ${describeValue(value)}`);
  }
  if (value.length > ABI_LIMITS.arrayLength) {
    throw badRequest(`${path} has ${value.length} elements; at most ${ABI_LIMITS.arrayLength} are accepted`);
  }
  if (fixed && value.length !== type.arrayLength) {
    throw badRequest(`${path} must have exactly ${type.arrayLength} elements; got ${value.length}`);
  }
  const result: NormalizedValue[] = [];
  // An index loop, not map(): map skips the holes of a sparse array and would leave them holes.
  for (let i = 0; i < value.length; i++) {
    result.push(convertValue(type.arrayChildren, value[i], elementPath(path, i), depth + 1, budget));
  }
  return result;
}

function convertTuple(
  type: ParamType & { components: readonly ParamType[] },
  value: unknown,
  path: string,
  depth: number,
  budget: ConvertBudget,
): NormalizedValue[] {
  const names = type.components.map((c, i) => c.name || String(i));
  const unnamed = type.components.some((c) => !c.name);
  let fields: Field[];
  if (isPlainObject(value)) {
    fields = fieldValues(value, type.components, path, {
      noun: "component",
      label: path,
    });
  } else if (unnamed && Array.isArray(value)) {
    // Positional form, for tuples whose components cannot all be named.
    if (value.length !== type.components.length) {
      throw badRequest(`${path} must have exactly ${type.components.length} elements; got ${value.length}`);
    }
    fields = type.components.map((component, i) => ({
      type: component,
      value: value[i],
      path: elementPath(path, i),
    }));
  } else {
    const forms = unnamed
      ? `an object keyed by component (${nameList(names)}) or an array of ${names.length}`
      : `an object with ${nameList(names)}`;
    throw badRequest(`${path} must be ${forms}; got ${describeValue(value)}`);
  }
  return fields.map((field) => convertValue(field.type, field.value, field.path, depth + 1, budget));
}
