import { Wallet, getAddress, hexlify, isHexString } from "ethers";
import { AppError } from "@relay/core";
import { needsReseal, open, seal, type Kek } from "@relay/secrets";

/** What binds a wallet's sealed key to its record. */
const walletAad = (walletId: string, address: string) => `wallet:${walletId}:${getAddress(address)}`;

export interface NewWalletKey {
  address: string;
  /** Seals the key for the wallet record with this id. */
  sealFor: (walletId: string) => string;
}

export function generateWalletKey(kek: Kek): NewWalletKey {
  return fromPrivateKey(kek, Wallet.createRandom().privateKey);
}

/** Validates an imported private key (32 bytes hex, with or without 0x) without echoing it. */
export function importWalletKey(kek: Kek, privateKey: string): NewWalletKey {
  const hex = privateKey.trim().startsWith("0x") ? privateKey.trim() : `0x${privateKey.trim()}`;
  if (!isHexString(hex, 32)) throw new AppError("BAD_REQUEST", "A private key must be 32 bytes as hex (64 hex digits, 0x optional)");
  try {
    return fromPrivateKey(kek, hex);
  } catch {
    throw new AppError("BAD_REQUEST", "The private key is not a valid secp256k1 key");
  }
}

function fromPrivateKey(kek: Kek, privateKey: string): NewWalletKey {
  const wallet = new Wallet(privateKey);
  const bytes = Buffer.from(wallet.privateKey.slice(2), "hex");
  return {
    address: wallet.address,
    sealFor: (walletId) => seal(kek, bytes, walletAad(walletId, wallet.address)),
  };
}

/** A LOCAL wallet's sealed key; a wallet whose key an HSM or KMS keeps has none to open or export. */
function sealedKey(wallet: { id: string; encryptedKey: string | null; backend?: string }): string {
  if (wallet.encryptedKey === null) {
    throw new AppError("BAD_REQUEST", `Wallet ${wallet.id}'s key is kept in its custody backend (${wallet.backend ?? "not LOCAL"}): it has no sealed key here, and cannot be opened or exported`);
  }
  return wallet.encryptedKey;
}

/** Opens a LOCAL wallet's sealed key and checks it belongs to the stored address. */
export function openWalletKey(kek: Kek, wallet: { id: string; address: string; encryptedKey: string | null; backend?: string }): Wallet {
  const bytes = open(kek, sealedKey(wallet), walletAad(wallet.id, wallet.address));
  const signer = new Wallet(hexlify(bytes));
  bytes.fill(0);
  if (signer.address !== getAddress(wallet.address)) {
    throw new AppError("CRYPTO", `Stored key of wallet ${wallet.id} does not match its address`);
  }
  return signer;
}

/**
 * The wallet's key sealed again under the keyring's active key (same associated data), or null
 * when it already is. Opens with whichever key sealed it, so that key must still be in the
 * keyring; throws (CONFIG, CRYPTO) when it is not or the value does not open. One already under
 * the active key id is opened too: a new key given the old key's id (KEY_ENCRYPTION_KEY_ID left
 * as it was) names the key it was sealed with and still does not open it, and a reseal that
 * counted it as done told the operator the old key could go.
 */
export function resealWalletKey(kek: Kek, wallet: { id: string; address: string; encryptedKey: string }): string | null {
  if (!needsReseal(kek, wallet.encryptedKey)) {
    openWalletKey(kek, wallet);
    return null;
  }
  const aad = walletAad(wallet.id, wallet.address);
  const bytes = open(kek, wallet.encryptedKey, aad);
  try {
    return seal(kek, bytes, aad);
  } finally {
    bytes.fill(0);
  }
}
