/** How the console writes the API's values. */

export const time = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : "—");

/** An address or hash shortened for a table cell; the whole value goes in the title. */
export const short = (hex: string | null | undefined): string => (!hex ? "—" : hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex);

/** Wei as gwei, exact to 9 decimals without floating point. */
export function gwei(wei: string | null | undefined): string {
  if (!wei) return "—";
  const n = BigInt(wei);
  const whole = n / 1_000_000_000n;
  const frac = (n % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${whole}${frac ? `.${frac}` : ""} gwei`;
}

/** Wei as ether, exact to 6 decimals (rounded down) without floating point. */
export function ether(wei: string | null | undefined): string {
  if (!wei) return "—";
  const n = BigInt(wei);
  const whole = n / 10n ** 18n;
  const frac = ((n % 10n ** 18n) / 10n ** 12n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${whole}${frac ? `.${frac}` : ""} ETH`;
}
