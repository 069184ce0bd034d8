import { TypedDataEncoder } from "ethers";
import { badRequest, childPath, describeValue, elementPath, isPlainObject, nameList, shortName, shortText } from "../abi/describe-value";
import { ABI_LIMITS } from "../abi/limits";
import { convertScalar } from "../abi/scalar-value";

/**
 * EIP-712 typed data as Syndicate's signTypedData takes it (and eth_signTypedData_v4): the domain,
 * the struct types (optionally with `EIP712Domain`), the primary type and the message. Checked
 * field by field before ethers sees it, so a wrong one is a 400 that names it
 * (`types.Mail[1].type names no type: "Persn"`), and hashed with ethers' TypedDataEncoder, the
 * implementation `ethers.verifyTypedData` uses.
 */
export interface TypedField {
  name: string;
  type: string;
}

export interface TypedData {
  domain: Record<string, unknown>;
  types: Record<string, TypedField[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** What gets signed: the EIP-712 digest, and the types ethers hashes (the primary type and those it uses, no EIP712Domain). */
export interface CheckedTypedData {
  digest: string;
  structTypes: Record<string, TypedField[]>;
}

/** The domain's fields, in the order EIP-712 encodes them, with their types. */
const DOMAIN_FIELDS: readonly TypedField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];
const IDENTIFIER_TEXT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** An identifier, and not one every JavaScript object has (`constructor`, `__proto__`): a name is looked up in objects. */
const isIdentifier = (name: string) => IDENTIFIER_TEXT.test(name) && !(name in Object.prototype);
const has = (object: object, key: string) => Object.hasOwn(object, key);
const ATOMIC = /^(address|bool|string|bytes([1-9]|[12][0-9]|3[12])?|u?int(8|16|24|32|40|48|56|64|72|80|88|96|104|112|120|128|136|144|152|160|168|176|184|192|200|208|216|224|232|240|248|256))$/;
const ARRAY_SUFFIX = /\[(\d*)\]$/;
/** Struct types in one request: far beyond any real typed data, small enough to check in no time. */
export const TYPED_DATA_LIMITS = Object.freeze({ types: 64, fieldsPerType: 128 });

/** `Person[2][]` → `Person`, with its array dimensions outermost last. */
function baseOf(type: string): { base: string; dims: (number | null)[] } {
  const dims: (number | null)[] = [];
  let rest = type;
  for (let m = ARRAY_SUFFIX.exec(rest); m; m = ARRAY_SUFFIX.exec(rest)) {
    dims.unshift(m[1] === "" ? null : Number(m[1]));
    rest = rest.slice(0, m.index);
  }
  return { base: rest, dims };
}

function checkTypes(types: Record<string, TypedField[]>): void {
  const names = Object.keys(types);
  if (names.length > TYPED_DATA_LIMITS.types) throw badRequest(`types has ${names.length} types; at most ${TYPED_DATA_LIMITS.types}`);
  for (const typeName of names) {
    const path = childPath("types", typeName);
    if (!isIdentifier(typeName)) throw badRequest(`${path}: a type name must be an identifier (letters, digits, _ or $, not starting with a digit)`);
    if (ATOMIC.test(typeName)) throw badRequest(`${path}: ${typeName} is an atomic type and cannot be redefined`);
    const fields = types[typeName]!;
    if (fields.length > TYPED_DATA_LIMITS.fieldsPerType) throw badRequest(`${path} has ${fields.length} fields; at most ${TYPED_DATA_LIMITS.fieldsPerType}`);
    const seen = new Set<string>();
    fields.forEach((field, i) => {
      const at = elementPath(path, i);
      if (!isIdentifier(field.name)) throw badRequest(`${at}.name must be an identifier; got ${describeValue(field.name)}`);
      if (seen.has(field.name)) throw badRequest(`${at}.name: ${path} has two fields named ${shortName(field.name)}`);
      seen.add(field.name);
      const { base, dims } = baseOf(field.type);
      if (!ATOMIC.test(base) && !(has(types, base) && base !== "EIP712Domain")) {
        throw badRequest(`${at}.type names no type: ${JSON.stringify(shortName(field.type))} (atomic types, or one of ${nameList(names.filter((n) => n !== "EIP712Domain"))})`);
      }
      if (dims.some((d) => d !== null && (d < 1 || d > ABI_LIMITS.arrayLength))) {
        throw badRequest(`${at}.type: a fixed array length must be 1 to ${ABI_LIMITS.arrayLength}`);
      }
    });
  }
}

/** The primary type and every struct type it uses, in no particular order: what the hash depends on. */
function reachable(types: Record<string, TypedField[]>, primaryType: string): Record<string, TypedField[]> {
  const out: Record<string, TypedField[]> = {};
  const visit = (name: string, trail: string[]) => {
    if (trail.includes(name)) throw badRequest(`${childPath("types", trail[0]!)} refers to itself (${shortText([...trail, name].join(" → "))}); EIP-712 structs cannot be recursive here`);
    if (has(out, name)) return;
    out[name] = types[name]!;
    for (const field of types[name]!) {
      const { base } = baseOf(field.type);
      if (!ATOMIC.test(base)) visit(base, [...trail, name]);
    }
  };
  visit(primaryType, []);
  return out;
}

function checkDomain(domain: Record<string, unknown>, types: Record<string, TypedField[]>): void {
  const known = new Map(DOMAIN_FIELDS.map((f) => [f.name, f.type]));
  const keys = Object.keys(domain);
  if (keys.length === 0) throw badRequest("domain needs at least one of name, version, chainId, verifyingContract, salt");
  for (const key of keys) {
    const type = known.get(key);
    if (!type) throw badRequest(`${childPath("domain", key)} is not an EIP-712 domain field (name, version, chainId, verifyingContract, salt)`);
    convertScalar(type, domain[key], childPath("domain", key));
  }
  // The domain separator covers exactly the fields given, in EIP-712's order; an EIP712Domain
  // type that says otherwise would make the signer and the verifier hash different domains.
  const declared = types.EIP712Domain;
  if (declared) {
    const expected = DOMAIN_FIELDS.filter((f) => has(domain, f.name));
    const same = declared.length === expected.length && declared.every((f, i) => f.name === expected[i]!.name && f.type === expected[i]!.type);
    if (!same) {
      throw badRequest(
        `types.EIP712Domain must list the domain's fields in EIP-712's order: ${expected.map((f) => `${f.type} ${f.name}`).join(", ")}; got ${shortText(declared.map((f) => `${f.type} ${f.name}`).join(", ")) || "none"}`,
      );
    }
  }
}

interface Budget {
  values: number;
}

function checkValue(types: Record<string, TypedField[]>, type: string, value: unknown, path: string, depth: number, budget: Budget): void {
  if (++budget.values > ABI_LIMITS.values) throw badRequest(`message has more than ${ABI_LIMITS.values} values in all (at ${path})`);
  if (depth > ABI_LIMITS.depth) throw badRequest(`${path} nests arrays and structs deeper than ${ABI_LIMITS.depth} levels`);
  const { base, dims } = baseOf(type);
  if (dims.length > 0) {
    const length = dims[dims.length - 1];
    const inner = type.slice(0, type.lastIndexOf("["));
    if (!Array.isArray(value)) throw badRequest(`${path} must be an array (${shortName(type)}); got ${describeValue(value)}`);
    if (length != null && value.length !== length) throw badRequest(`${path} must have exactly ${length} elements; got ${value.length}`);
    if (value.length > ABI_LIMITS.arrayLength) throw badRequest(`${path} has ${value.length} elements; at most ${ABI_LIMITS.arrayLength}`);
    value.forEach((v, i) => checkValue(types, inner, v, elementPath(path, i), depth + 1, budget));
    return;
  }
  if (ATOMIC.test(base)) {
    convertScalar(base, value, path);
    return;
  }
  checkStruct(types, base, value, path, depth + 1, budget);
}

function checkStruct(types: Record<string, TypedField[]>, typeName: string, value: unknown, path: string, depth: number, budget: Budget): void {
  if (!isPlainObject(value)) throw badRequest(`${path} must be an object (${shortName(typeName)}); got ${describeValue(value)}`);
  const fields = types[typeName]!;
  const declared = new Set(fields.map((f) => f.name));
  const extra = Object.keys(value).find((k) => !declared.has(k));
  if (extra !== undefined) throw badRequest(`${childPath(path, extra)} is not a field of ${shortName(typeName)} (its fields: ${nameList(fields.map((f) => f.name))})`);
  for (const field of fields) {
    const at = childPath(path, field.name);
    if (!has(value, field.name)) throw badRequest(`${at} is missing (${shortName(field.type)})`);
    checkValue(types, field.type, value[field.name], at, depth, budget);
  }
}

/**
 * Checks typed data and computes its EIP-712 digest. Throws a BAD_REQUEST naming the field at
 * fault: `domain.verifyingContract`, `types.Mail[1].type`, `primaryType`, `message.to.wallet`.
 * Types the primary type does not use are allowed (eth_signTypedData_v4 ignores them too) and
 * do not change the digest.
 */
export function checkTypedData(data: TypedData): CheckedTypedData {
  checkTypes(data.types);
  if (data.primaryType === "EIP712Domain") throw badRequest("primaryType cannot be EIP712Domain: name the type of the message");
  if (!has(data.types, data.primaryType)) {
    throw badRequest(`primaryType ${JSON.stringify(shortName(data.primaryType))} is not one of types (${nameList(Object.keys(data.types).filter((n) => n !== "EIP712Domain"))})`);
  }
  checkDomain(data.domain, data.types);
  const structTypes = reachable(data.types, data.primaryType);
  checkStruct(structTypes, data.primaryType, data.message, "message", 0, { values: 0 });
  let digest: string;
  try {
    digest = TypedDataEncoder.hash(data.domain, structTypes, data.message);
  } catch (e) {
    // Everything ethers checks was checked above; this is a case the checks above missed.
    throw badRequest(`typed data cannot be encoded: ${shortText(e instanceof Error ? (e.message.split(" (")[0] ?? "") : String(e))}`, e);
  }
  return { digest, structTypes };
}

/** The EIP-712 digest of typed data already checked (the signing worker: what the gateway stored). */
export function typedDataDigest(data: TypedData): string {
  return checkTypedData(data).digest;
}
