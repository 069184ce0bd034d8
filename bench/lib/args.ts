/** `--name value` from the command line, as a number; `fallback` when absent. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number, got ${process.argv[i + 1]}`);
  return value;
}

/** `--name value` as a string, limited to `choices`. */
export function choiceArg<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1] as T;
  if (!choices.includes(value)) throw new Error(`--${name} must be one of ${choices.join(", ")}, got ${value}`);
  return value;
}

export const flag = (name: string) => process.argv.includes(`--${name}`);

export const line = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
