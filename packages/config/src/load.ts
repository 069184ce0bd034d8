import { z } from "zod";

export type Env = Record<string, string | undefined>;

/** Thrown at start-up when the environment does not describe a runnable app. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/**
 * Parses the environment with a zod schema whose keys are variable names, and says which
 * variables are wrong and why in one message. Returns a frozen object; never exits the process.
 * A variable set to the empty string (`PORT=` in an env file) counts as unset: read as a number
 * it was 0, a random port or no shutdown grace at all.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env): Readonly<z.output<S>> {
  const result = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")));
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = issue.path.join(".") || "(environment)";
      const value = typeof issue.path[0] === "string" ? env[issue.path[0]] : undefined;
      const shown = value === undefined ? "unset" : value === "" ? "empty" : isSecretName(name) ? "set" : JSON.stringify(value);
      const message = (value === undefined || value === "") && issue.code === "invalid_type" ? "is required" : issue.message;
      return `  ${name} (${shown}): ${message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return Object.freeze(result.data);
}

const isSecretName = (name: string) => /KEY|SECRET|PASSWORD|TOKEN|URL|PIN/.test(name) && name !== "HSM_TOKEN_LABEL";
