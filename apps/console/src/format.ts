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

/** How long before `nowMs` an instant was, roughly: "12 s ago", "3 min ago", "2 h ago". */
export function ago(iso: string, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - new Date(iso).getTime()) / 1000));
  if (s < 120) return `${s} s ago`;
  if (s < 7200) return `${Math.round(s / 60)} min ago`;
  return `${Math.round(s / 3600)} h ago`;
}
