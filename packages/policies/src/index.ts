export { parsePolicy, policySchema } from "./policy.schema";
export type { Policy } from "./policy.schema";
export { chooseWallet, compilePolicy, hasWalletLimits, refuseCall, refuseSpend, refuseUnboundedGas, roomOf } from "./evaluate-policy";
export type { CallToCheck, CompiledPolicy, SpendNeed, WalletSpend } from "./evaluate-policy";
export { allowlistMatcher, parseCidr, parseCidrs, parseScopes, SCOPES } from "./scopes";
export type { Scope } from "./scopes";
