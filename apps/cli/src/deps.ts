import type { Logger } from "@relay/core";
import type { CustodyBackends, Kek } from "@relay/custody";
import type { ApiKeyRepository, ChainRepository, PolicyRepository, ProjectFundingRepository, ProjectRepository, WalletRepository, WebhookSecretRepository } from "@relay/db";
import type { CliAudit } from "./audit";
import type { Output } from "./output";

/** What the commands need from the outside world; `main.ts` builds the real ones, tests their own. */
export interface CliDeps {
  projects: ProjectRepository;
  apiKeys: ApiKeyRepository;
  chains: ChainRepository;
  wallets: WalletRepository;
  /** Managed gas settings (`funding`). */
  fundings: ProjectFundingRepository;
  /** Projects' policies (`policies`). */
  policies: PolicyRepository;
  /**
   * Loads the key-encryption key. Only `wallets create|import|reseal|export-key` call it, so every other command
   * runs without the KEK in the environment; throws a one-line AppError when it is missing.
   */
  getKek: () => Kek;
  /**
   * Opens the HSM and KMS backends configured by HSM_* and KMS_* (once; main.ts closes them). Only
   * `wallets create --backend hsm|kms` calls it.
   */
  getCustodyBackends: () => CustodyBackends;
  /** Registrations' sealed webhook secrets (`webhooks reseal`). */
  webhookSecrets: WebhookSecretRepository;
  /** Loads the webhook secrets' keyring (WEBHOOK_SECRET_KEY*); only `webhooks reseal` calls it. */
  getWebhookKeyring: () => Kek;
  /** The audit log: what the commands that change keys, wallets and projects record, and `audit list`. */
  audit: CliAudit;
  output: Output;
  /** Reads a secret (the private key of `wallets import`) from standard input. */
  readSecretStdin: () => Promise<string>;
  /** Asks an RPC endpoint for its chain id; the default is `fetchChainId` in rpc-probe.ts. */
  probeChainId?: (rpcUrl: string) => Promise<bigint>;
  /** Receives the full error of a failed command at debug level (the operator sees one line). */
  logger?: Logger;
}
