import { randomBytes, randomUUID } from "node:crypto";
import {
  CreateKeyCommand,
  GetPublicKeyCommand,
  InvalidKeyUsageException,
  KMSClient,
  NotFoundException,
  SignCommand,
  UnsupportedOperationException,
} from "@aws-sdk/client-kms";
import { mockClient, type AwsClientStub } from "aws-sdk-client-mock";
import { SigningKey, computeAddress, getBytes, hexlify } from "ethers";

/** secp256k1's order: s and n − s are both valid ECDSA, and KMS answers either. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** SubjectPublicKeyInfo of an id-ecPublicKey on secp256k1, up to the uncompressed point. */
const SPKI_PREFIX = Buffer.from("3056301006072a8648ce3d020106052b8104000a034200", "hex");

const derInteger = (n: bigint): Buffer => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const body = Buffer.from(hex, "hex");
  const pad = body[0]! & 0x80 ? Buffer.from([0]) : Buffer.alloc(0);
  return Buffer.concat([Buffer.from([0x02, body.length + pad.length]), pad, body]);
};

/** An ECDSA-Sig-Value (SEQUENCE of INTEGER r, INTEGER s), as KMS's Sign answers. */
export function derEcdsaSignature(r: bigint, s: bigint): Buffer {
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

export interface FakeKms {
  /** A client whose `send` the mock answers: give it to the custody package's `createKmsBackend`. */
  client: KMSClient;
  /** The SDK's stub, for a test that changes an answer (a throttled Sign, a malformed signature). */
  mock: AwsClientStub<KMSClient>;
  /** The ARNs CreateKey answered, oldest first. */
  arns(): string[];
  /** The Ethereum address of a key CreateKey made, by its key id or ARN. */
  addressOf(keyId: string): string;
  /** How many signatures Sign answered, and how many of them with the high s. */
  signatures(): { total: number; highS: number };
  restore(): void;
}

export interface FakeKmsOptions {
  region?: string;
  /**
   * Which signatures Sign answers with the high s: every second one (the default), or all of them,
   * so that every signing path of a test must bring s to the lower half.
   */
  highS?: "every-second" | "all";
}

const keyIdOf = (keyIdOrArn: string): string => (keyIdOrArn.startsWith("arn:") ? keyIdOrArn.slice(keyIdOrArn.lastIndexOf("/") + 1) : keyIdOrArn);

/**
 * AWS KMS as far as the relay uses it, for tests (AWS cannot run here): the SDK's own client mock
 * on one KMSClient. CreateKey makes a fresh real secp256k1 key each call; GetPublicKey answers its
 * DER SubjectPublicKeyInfo; Sign answers a DER signature over the given digest, every second one
 * (or each one) with the high s, as KMS may. A key it did not make is KMS's NotFoundException.
 */
export function createFakeKms({ region = "eu-west-1", highS: mirror = "every-second" }: FakeKmsOptions = {}): FakeKms {
  const client = new KMSClient({ region });
  const mock = mockClient(client);
  const keys = new Map<string, { arn: string; key: SigningKey }>();
  let total = 0;
  let highS = 0;

  const find = (keyId: string | undefined) => {
    const found = keyId === undefined ? undefined : keys.get(keyIdOf(keyId));
    if (!found) throw new NotFoundException({ message: `Key '${keyId}' does not exist`, $metadata: {} });
    return found;
  };

  mock.on(CreateKeyCommand).callsFake(async (input: { KeySpec?: string; KeyUsage?: string }) => {
    if (input.KeySpec !== "ECC_SECG_P256K1" || input.KeyUsage !== "SIGN_VERIFY") {
      throw new UnsupportedOperationException({ message: `this fake makes ECC_SECG_P256K1 SIGN_VERIFY keys only, not ${input.KeySpec} ${input.KeyUsage}`, $metadata: {} });
    }
    const keyId = randomUUID();
    const arn = `arn:aws:kms:${region}:111122223333:key/${keyId}`;
    keys.set(keyId, { arn, key: new SigningKey(randomBytes(32)) });
    return { KeyMetadata: { KeyId: keyId, Arn: arn, KeySpec: input.KeySpec, KeyUsage: input.KeyUsage, Enabled: true } };
  });

  mock.on(GetPublicKeyCommand).callsFake(async (input: { KeyId?: string }) => {
    const { arn, key } = find(input.KeyId);
    return { KeyId: arn, PublicKey: Buffer.concat([SPKI_PREFIX, getBytes(key.publicKey)]), KeySpec: "ECC_SECG_P256K1", KeyUsage: "SIGN_VERIFY", SigningAlgorithms: ["ECDSA_SHA_256"] };
  });

  mock.on(SignCommand).callsFake(async (input: { KeyId?: string; Message?: Uint8Array; MessageType?: string; SigningAlgorithm?: string }) => {
    const { arn, key } = find(input.KeyId);
    if (input.MessageType !== "DIGEST" || input.SigningAlgorithm !== "ECDSA_SHA_256" || input.Message?.length !== 32) {
      throw new InvalidKeyUsageException({ message: `expected a 32-byte DIGEST with ECDSA_SHA_256, got ${input.MessageType} ${input.SigningAlgorithm}`, $metadata: {} });
    }
    const signature = key.sign(hexlify(input.Message));
    let s = BigInt(signature.s);
    if (mirror === "all" || total % 2 === 1) {
      s = CURVE_ORDER - s; // the mirrored signature: as valid for ECDSA, refused by Ethereum
      highS++;
    }
    total++;
    return { KeyId: arn, Signature: derEcdsaSignature(BigInt(signature.r), s), SigningAlgorithm: "ECDSA_SHA_256" };
  });

  return {
    client,
    mock,
    arns: () => [...keys.values()].map((k) => k.arn),
    addressOf: (keyId) => computeAddress(find(keyId).key.publicKey),
    signatures: () => ({ total, highS }),
    restore: () => mock.restore(),
  };
}
