import { useState } from "preact/hooks";
import { api, projectPath } from "./api";
import { BarChart, Legend, LineChart, type Series } from "./charts";
import type { Session } from "./session";
import type { ProjectActivity } from "./types";
import { usePoll } from "./use-poll";

const clock = (iso: string, window: "hour" | "day"): string =>
  window === "hour" ? new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : new Date(iso).toLocaleString([], { weekday: "short", hour: "2-digit", minute: "2-digit" });

const total = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/**
 * The project's activity over the last hour or day (GET …/activity): accepted and confirmed per
 * minute, time to confirm, the share of delivery attempts its receivers took, its queue depth
 * sampled once a minute, and its queue now.
 */
export function ChartsPage(props: { session: Session }) {
  const [range, setRange] = useState<"hour" | "day">("hour");
  const activity = usePoll(
    () => api<ProjectActivity>(props.session, "GET", projectPath(props.session, "transact", "/activity"), new URLSearchParams({ window: range })),
    `${props.session.projectId}:${range}`,
    5000,
  );
  const a = activity.data;
  const perMinute = (n: number) => (a ? n / (a.bucketSeconds / 60) : 0);

  return (
    <section aria-labelledby="charts-title">
      <h1 id="charts-title">Activity</h1>
      <div class="toggle" role="group" aria-label="Window">
        {(["hour", "day"] as const).map((w) => (
          <button type="button" class={w === range ? "" : "secondary"} aria-pressed={w === range} onClick={() => setRange(w)}>
            Last {w}
          </button>
        ))}
      </div>
      {activity.error && (
        <p role="alert" class="error">
          {activity.error}
        </p>
      )}
      {!a && !activity.error && <p>Loading…</p>}
      {a && a.window === range && <Charts a={a} perMinute={perMinute} />}
    </section>
  );
}

function Charts(props: { a: ProjectActivity; perMinute: (n: number) => number }) {
  const { a, perMinute } = props;
  const first = clock(a.buckets[0]!.start, a.window);
  const last = "now";
  const accepted = a.buckets.map((b) => b.accepted);
  const confirmed = a.buckets.map((b) => b.confirmed);
  const throughput: Series[] = [
    { label: "Accepted", values: accepted.map(perMinute), tone: "tone-a" },
    { label: "Confirmed", values: confirmed.map(perMinute), tone: "tone-b" },
  ];
  const latency: Series[] = [
    { label: "p50", values: a.buckets.map((b) => b.confirmSecondsP50), tone: "tone-b" },
    { label: "p99", values: a.buckets.map((b) => b.confirmSecondsP99), tone: "tone-c" },
  ];
  const attempts = total(a.buckets.map((b) => b.deliveryAttempts));
  const delivered = total(a.buckets.map((b) => b.deliveredAttempts));
  const success: Series[] = [{ label: "Delivered (2xx)", values: a.buckets.map((b) => (b.deliveryAttempts === 0 ? null : (100 * b.deliveredAttempts) / b.deliveryAttempts)), tone: "tone-b" }];
  const queued: Series[] = [
    { label: "Transactions unfinished", values: a.buckets.map((b) => b.waitingTransactions), tone: "tone-a" },
    { label: "Deliveries to make", values: a.buckets.map((b) => b.waitingDeliveries), tone: "tone-c" },
  ];
  const sampled = a.buckets.filter((b) => b.waitingTransactions !== null);
  const peakQueued = Math.max(0, ...sampled.map((b) => b.waitingTransactions ?? 0));
  const p50s = a.buckets.map((b) => b.confirmSecondsP50).filter((v): v is number => v !== null);
  const worst = Math.max(0, ...a.buckets.map((b) => b.confirmSecondsP99 ?? 0));

  return (
    <div class="charts">
      <figure>
        <figcaption>
          Accepted and confirmed per minute: <span data-testid="accepted-total">{total(accepted)}</span> accepted, <span data-testid="confirmed-total">{total(confirmed)}</span> confirmed
        </figcaption>
        <BarChart series={throughput} unit="/min" first={first} last={last} label={`${total(accepted)} transactions accepted and ${total(confirmed)} confirmed in the last ${a.window}`} />
        <Legend series={throughput} />
      </figure>
      <figure>
        <figcaption>
          Time to confirm (seconds):{" "}
          {p50s.length === 0 ? (
            "no confirmations"
          ) : (
            <>
              median of buckets {(p50s.reduce((x, y) => x + y, 0) / p50s.length).toFixed(1)} s, worst p99 <span data-testid="p99-max">{worst.toFixed(1)}</span> s
            </>
          )}
        </figcaption>
        <LineChart series={latency} unit="s" first={first} last={last} label={`Seconds from acceptance to CONFIRMED, median and 99th percentile per bucket; worst p99 ${worst.toFixed(1)} s`} />
        <Legend series={latency} />
      </figure>
      <figure>
        <figcaption>
          Delivery success: <span data-testid="delivery-rate">{attempts === 0 ? "no attempts" : `${Math.round((100 * delivered) / attempts)} %`}</span> of {attempts} attempts answered 2xx
        </figcaption>
        <BarChart series={success} unit="%" max={100} first={first} last={last} label={`${delivered} of ${attempts} delivery attempts answered 2xx in the last ${a.window}`} />
      </figure>
      <figure>
        <figcaption>
          Queue depth{a.window === "day" ? " (the most at a minute of each quarter hour)" : ""}:{" "}
          {sampled.length === 0 ? (
            "not sampled yet"
          ) : (
            <>
              at most <span data-testid="queued-max">{peakQueued}</span> transactions unfinished, sampled in <span data-testid="queued-buckets">{sampled.length}</span> of {a.buckets.length}{" "}
              {a.window === "hour" ? "minutes" : "quarter hours"}
            </>
          )}
        </figcaption>
        <LineChart
          series={queued}
          unit=""
          first={first}
          last={last}
          label={`The project's unfinished transactions and deliveries still to make, sampled once a minute; at most ${peakQueued} transactions in the last ${a.window}`}
        />
        <Legend series={queued} />
      </figure>
      <figure>
        <figcaption>Queue now</figcaption>
        <dl class="facts queue" data-testid="queue">
          <dt>Pending</dt>
          <dd>{a.waiting.pending}</dd>
          <dt>Submitted</dt>
          <dd>{a.waiting.submitted}</dd>
          <dt>Paused</dt>
          <dd>{a.waiting.paused}</dd>
          <dt>Deliveries to make</dt>
          <dd>{a.waiting.deliveriesPending}</dd>
          <dt>Events to dispatch</dt>
          <dd>{a.waiting.eventsUndispatched}</dd>
        </dl>
      </figure>
    </div>
  );
}
