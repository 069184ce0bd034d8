export { needsReseal, open, seal } from "./envelope";
export type { Kek } from "./envelope";
export { generateWalletKey, importWalletKey, openWalletKey } from "./wallet-keys";
export type { NewWalletKey } from "./wallet-keys";
export { createLocalSigner } from "./signer";
export type { LocalSignerOptions, Signer, WalletKeyRef } from "./signer";
