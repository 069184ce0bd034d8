export { needsReseal, open, seal } from "@relay/secrets";
export type { Kek } from "@relay/secrets";
export { generateWalletKey, importWalletKey, openWalletKey, resealWalletKey } from "./wallet-keys";
export type { NewWalletKey } from "./wallet-keys";
export { createLocalSigner } from "./signer";
export type { LocalSignerOptions, Signer, WalletKeyRef } from "./signer";
