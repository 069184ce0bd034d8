import { z } from "zod";
import { CUSTODY_BACKENDS } from "@relay/core";
import { evmAddress, omittable, uuid } from "../http-schemas";

/** Where a wallet's key is kept (docs/custody.md): a relay field, beside Syndicate's. */
export const custodyBackend = z.enum(CUSTODY_BACKENDS).meta({ id: "CustodyBackend", description: "Where the wallet's key is kept: LOCAL (sealed by the relay), HSM (a PKCS#11 token) or KMS (AWS KMS)" });

/** Syndicate's wallet types; the relay's wallets are all BROADCAST (docs/syndicate.md, "Wallets"). */
export const walletType = z.enum(["BROADCAST", "SIGNING", "CLUSTER_MANAGER"]).meta({ id: "WalletType" });

const projectId = uuid("projectId must be a UUID").meta({ description: "Project id (UUID); must be the API key's project" });

export const createWalletRequest = z
  .strictObject({
    projectId,
    chainId: z
      .number({ error: "chainId must be a number" })
      .int("chainId must be an integer")
      .positive("chainId must be positive")
      .meta({ description: "A chain configured on this relay. The wallet signs on every configured chain; this one is checked to be one." }),
    type: omittable(z.enum(["BROADCAST"], { error: "type must be BROADCAST (the only type this relay creates), or omitted" })).meta({
      description: "BROADCAST, or omitted: the relay has no SIGNING or CLUSTER_MANAGER wallets",
    }),
    backend: omittable(
      z
        .string({ error: "backend must be LOCAL, HSM or KMS, or omitted (LOCAL)" })
        .transform((v) => v.toUpperCase())
        .pipe(z.enum(CUSTODY_BACKENDS, { error: "backend must be LOCAL, HSM or KMS, or omitted (LOCAL)" })),
    ).meta({
      description: "Relay field: where the key is made and kept (LOCAL, HSM or KMS; any case). Omitted: LOCAL. HSM and KMS must be configured on the signing worker (docs/custody.md)",
    }),
  })
  .meta({ id: "CreateWalletRequest" });

export const createWalletResponse = z
  .object({ projectId: z.uuid(), walletAddress: z.string().meta({ description: "Checksummed address of the new wallet" }), backend: custodyBackend })
  .meta({ id: "CreateWalletResponse" });

export const toggleIsActiveRequest = z.strictObject({ projectId, walletAddress: evmAddress("walletAddress") }).meta({ id: "ToggleIsActiveRequest" });

export const retireWalletRequest = z
  .strictObject({
    projectId,
    walletAddress: evmAddress("walletAddress"),
    gasRecipient: omittable(z.unknown()).meta({
      description: "Not supported: the relay does not sweep a retired wallet's funds. Omit it (docs/wallets.md, \"Recovering a retired wallet's funds\").",
    }),
  })
  .meta({ id: "RetireWalletRequest" });

export const retireWalletResponse = z
  .object({ projectId: z.uuid(), walletAddress: z.string(), transactionId: z.uuid().optional().meta({ description: "Never set: no sweep is sent" }) })
  .meta({ id: "RetireWalletResponse" });

export const walletsQuery = z.strictObject({
  withData: z
    .enum(["true", "false"], { error: "withData must be true or false" })
    .optional()
    .transform((v) => v === "true")
    .meta({ description: "Also answer each row's balance and count of confirmed transactions" }),
});

export const walletResponse = z
  .object({
    walletId: z.uuid(),
    walletAddress: z.string(),
    chainId: z.number().int(),
    nonce: z.number().int().meta({ description: "The next nonce the relay hands out for the wallet on this chain (0 before its first send there)" }),
    isActive: z.boolean(),
    projectId: z.uuid(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    walletType,
    retiredAt: z.iso.datetime().nullable().meta({ description: "When the wallet was retired (relay field; Syndicate's SDK passes it through)" }),
    backend: custodyBackend,
  })
  .meta({ id: "Wallet" });

export const walletWithDataResponse = walletResponse
  .extend({
    txCount: z.number().int().optional().meta({ description: "Transactions this wallet sent that are CONFIRMED on this chain (withData)" }),
    balance: z
      .string()
      .optional()
      .meta({ description: "Wei, as the relay last read it (withData); absent until the relay has read it (within a minute of the wallet's creation)" }),
    lowBalance: z
      .boolean()
      .optional()
      .meta({ description: "Whether that balance was below the chain's low-balance threshold (a WalletBalanceLow event was sent when it fell there; withData, relay field); absent like balance" }),
    chainNonce: z
      .object({
        latest: z.number().int().meta({ description: "The wallet's nonce at the chain's head block: its transactions mined" }),
        pending: z.number().int().meta({ description: "The same with the transactions the chain's node holds pending" }),
        readAt: z.iso.datetime().meta({ description: "When the relay read them" }),
      })
      .optional()
      .meta({
        description:
          "The wallet's nonce on the chain as the relay last read it (once a minute, with the balance; withData, relay field): `nonce` above `pending` is transactions the relay is still sending, `latest` above `nonce` is a nonce used outside the relay. Absent until read",
      }),
  })
  .meta({ id: "WalletWithTxCountAndBalance" });

export type CreateWalletRequest = z.output<typeof createWalletRequest>;
