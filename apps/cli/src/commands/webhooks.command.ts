import type { Command } from "commander";
import { resealWebhookSecrets } from "@relay/webhooks";
import type { CliDeps } from "../deps";
import { emit } from "../output";
import { withJson, type JsonOption } from "./options";
import { resealAll, unopenedError } from "./reseal-all";

export function registerWebhookCommands(program: Command, deps: CliDeps): void {
  const webhooks = program.command("webhooks").description("operator tasks for event callback registrations");

  withJson(
    webhooks
      .command("reseal")
      .description(
        "seal every registration's webhook secret again under the active WEBHOOK_SECRET_KEY (after a rotation; the old key must be in WEBHOOK_SECRET_KEYS_PREVIOUS until this has run)",
      ),
  ).action(async (options: JsonOption) => {
    const keyring = deps.getWebhookKeyring();
    // A registration rotated meanwhile is left for the next run, which finds it sealed by the
    // gateway under the active key already.
    const now = new Date();
    const result = await resealAll(deps.webhookSecrets.list, (registration) => resealWebhookSecrets(keyring, registration, now), deps.webhookSecrets.replace);
    if (result.unopened.length > 0) {
      throw unopenedError(result, { what: "registration secret(s)", records: "event callbacks" }, { key: "WEBHOOK_SECRET_KEY", keyId: "WEBHOOK_SECRET_KEY_ID", previous: "WEBHOOK_SECRET_KEYS_PREVIOUS" }, keyring.activeKeyId);
    }
    emit(deps.output, options.json, { activeKeyId: keyring.activeKeyId, resealed: result.resealed, alreadyCurrent: result.current }, () =>
      `Re-sealed the secrets of ${result.resealed} event callback(s) under ${keyring.activeKeyId}; ${result.current} already were. Older keys can now leave WEBHOOK_SECRET_KEYS_PREVIOUS.`,
    );
  });
}
