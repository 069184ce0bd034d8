import type { Command } from "commander";
import { AppError } from "@relay/core";
import type { Kek } from "@relay/custody";
import { resealWebhookSecrets } from "@relay/webhooks";
import type { CliDeps } from "../deps";
import { emit } from "../output";
import { withJson, type JsonOption } from "./options";

const PAGE = 200;

/**
 * Every registration's secrets opened with the keyring and, where not yet under the active key,
 * sealed under it; a row changed meanwhile (a rotation) is left for the next run, which finds it
 * sealed by the gateway under the active key already. Secrets that do not open are listed, not
 * touched: the others are still re-sealed.
 */
async function resealAll(deps: CliDeps, keyring: Kek, now: Date): Promise<{ resealed: number; current: number; unopened: string[] }> {
  const result = { resealed: 0, current: 0, unopened: [] as string[] };
  for (let after: string | undefined; ; ) {
    const page = await deps.webhookSecrets.list({ ...(after ? { after } : {}), limit: PAGE });
    for (const registration of page) {
      let next: ReturnType<typeof resealWebhookSecrets>;
      try {
        next = resealWebhookSecrets(keyring, registration, now);
      } catch {
        result.unopened.push(registration.id);
        continue;
      }
      if (next === null || !(await deps.webhookSecrets.replace(registration, next))) result.current++;
      else result.resealed++;
    }
    if (page.length < PAGE) return result;
    after = page[page.length - 1]!.id;
  }
}

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
    const result = await resealAll(deps, keyring, new Date());
    if (result.unopened.length > 0) {
      const shown = result.unopened.slice(0, 5).join(", ") + (result.unopened.length > 5 ? ", …" : "");
      throw new AppError(
        "CONFIG",
        `${result.unopened.length} registration secret(s) do not open with WEBHOOK_SECRET_KEY and WEBHOOK_SECRET_KEYS_PREVIOUS (event callbacks ${shown}): add the key they were sealed with to WEBHOOK_SECRET_KEYS_PREVIOUS under its own id (a new WEBHOOK_SECRET_KEY needs a new WEBHOOK_SECRET_KEY_ID) and run again; keep every old key until this succeeds (${result.resealed} re-sealed, ${result.current} already under ${keyring.activeKeyId})`,
      );
    }
    emit(deps.output, options.json, { activeKeyId: keyring.activeKeyId, resealed: result.resealed, alreadyCurrent: result.current }, () =>
      `Re-sealed the secrets of ${result.resealed} event callback(s) under ${keyring.activeKeyId}; ${result.current} already were. Older keys can now leave WEBHOOK_SECRET_KEYS_PREVIOUS.`,
    );
  });
}
