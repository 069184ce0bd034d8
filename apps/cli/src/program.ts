import { Command, CommanderError } from "commander";
import { toError } from "@relay/core";
import { registerAuditCommands } from "./commands/audit.command";
import { registerChainCommands } from "./commands/chains.command";
import { registerFundingCommands } from "./commands/funding.command";
import { registerKeyCommands } from "./commands/keys.command";
import { registerPolicyCommands } from "./commands/policies.command";
import { registerProjectCommands } from "./commands/projects.command";
import { registerWalletCommands } from "./commands/wallets.command";
import { registerWebhookCommands } from "./commands/webhooks.command";
import type { CliDeps } from "./deps";
import { describeFailure } from "./errors";

export type { CliDeps } from "./deps";

/**
 * The whole command tree, wired to `deps`. It never exits the process or touches the real
 * streams: commander's own errors are thrown (exitOverride) and its output goes to `deps.output`,
 * so tests run commands in-process. Build a new program per run; commander keeps parsed state.
 */
export function createProgram(deps: CliDeps): Command {
  // Named as it is typed in a clone: commander prints the name in every usage line.
  const program = new Command("npm run relay --")
    .description("Operator CLI of the relay: projects, API keys, chains, wallets and webhook secrets")
    .exitOverride()
    .configureOutput({ writeOut: deps.output.stdout, writeErr: deps.output.stderr });
  registerProjectCommands(program, deps);
  registerKeyCommands(program, deps);
  registerChainCommands(program, deps);
  registerWalletCommands(program, deps);
  registerWebhookCommands(program, deps);
  registerFundingCommands(program, deps);
  registerPolicyCommands(program, deps);
  registerAuditCommands(program, deps);
  return program;
}

/**
 * Runs one command line (arguments after the program name) and returns the exit code. A failed
 * command prints one line on stderr saying what to do; the full error goes to the debug log.
 */
export async function runProgram(deps: CliDeps, args: readonly string[]): Promise<number> {
  try {
    await createProgram(deps).parseAsync([...args], { from: "user" });
    return 0;
  } catch (e) {
    // Commander has already printed its usage error (or the help it was asked for).
    if (e instanceof CommanderError) return e.exitCode;
    deps.logger?.debug({ err: toError(e) }, "command failed");
    deps.output.stderr(`error: ${describeFailure(e)}\n`);
    return 1;
  }
}
