-- What a signature record asks to have signed: an EIP-191 personal message (every existing row)
-- or EIP-712 typed data, whose request (domain, types, primaryType, message) is then held in
-- `message` as its JSON text. The signing worker reads the kind to know which digest to sign.
CREATE TYPE "SignatureKind" AS ENUM ('PERSONAL', 'TYPED_DATA');
ALTER TABLE "signature" ADD COLUMN "kind" "SignatureKind" NOT NULL DEFAULT 'PERSONAL';
