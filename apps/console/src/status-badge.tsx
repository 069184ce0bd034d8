import type { Status } from "./types";

const TONE: Record<string, string> = {
  CONFIRMED: "ok",
  PENDING: "wait",
  SUBMITTED: "wait",
  PAUSED: "warn",
  REVERTED: "bad",
  INVALID: "bad",
  FAILED: "bad",
  CANCELLED: "muted",
  EXPIRED: "muted",
};

export function StatusBadge(props: { status: Status | string }) {
  return <span class={`badge ${TONE[props.status] ?? "muted"}`}>{props.status}</span>;
}
