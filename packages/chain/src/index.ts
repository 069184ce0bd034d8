export { parseFunctionSignature } from "./abi/parse-function-signature";
export { encodeCall } from "./abi/encode-call";
export type { EncodedCall } from "./abi/encode-call";
export type { NormalizedValue } from "./abi/convert-value";
export { ABI_LIMITS } from "./abi/limits";
