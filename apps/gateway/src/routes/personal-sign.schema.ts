import { z } from "zod";
import { evmAddress, omittable, uuid } from "../http-schemas";

/** Longest message accepted for signing, in UTF-16 code units (as JSON strings count). */
export const MAX_MESSAGE_LENGTH = 65_536;

export const personalSignRequest = z
  .strictObject({
    signerAddress: evmAddress("signerAddress"),
    message: z
      .string({ error: "message must be a string" })
      .max(MAX_MESSAGE_LENGTH, `message must be at most ${MAX_MESSAGE_LENGTH} characters`)
      .refine((m) => m.isWellFormed(), "message must be valid Unicode text (it contains a lone surrogate)")
      .meta({ description: "Signed as EIP-191 personal_sign over its UTF-8 bytes, exactly as given" }),
    signatureId: omittable(uuid("signatureId must be a UUID")).meta({
      description:
        "Your id for this request, unique within the project (another project may use the same id); generated when null or omitted. Reusing it with the same signer and message returns the stored signature; with another, 400.",
    }),
  })
  .meta({ id: "PersonalSignRequest" });

export const personalSignResponse = z
  .object({
    message: z.string(),
    signature: z.string().meta({ description: "65-byte r‖s‖v as 0x-hex, v = 27 or 28", example: "0x…" }),
    signerAddress: z.string().meta({ description: "Checksummed address of the signer" }),
    signatureId: z.uuid(),
  })
  .meta({ id: "PersonalSignResponse" });

export const signatureRecordResponse = z
  .object({
    signatureId: z.uuid(),
    projectId: z.uuid(),
    signerAddress: z.string(),
    message: z.string(),
    status: z.enum(["PENDING", "SIGNED"]),
    signature: z.string().nullable(),
    createdAt: z.iso.datetime(),
    signedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: "SignatureRecord" });

export const signatureIdParams = z.object({
  projectId: uuid("projectId in the path must be a UUID"),
  signatureId: uuid("signatureId in the path must be a UUID"),
});

export type PersonalSignRequest = z.output<typeof personalSignRequest>;
export type PersonalSignResponse = z.output<typeof personalSignResponse>;
