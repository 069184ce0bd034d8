/**
 * Small SVG charts drawn from the data, no chart library: a few bars and lines do not need one,
 * and the page keeps to its Content-Security-Policy (SVG attributes, no inline style).
 */

const W = 600;
const H = 160;
const PAD = 24;

export interface Series {
  label: string;
  /** null: no value in that bucket (a gap). */
  values: (number | null)[];
  /** CSS class giving its colour (console.css). */
  tone: string;
}

const maxOf = (series: Series[]): number => Math.max(1, ...series.flatMap((s) => s.values.filter((v): v is number => v !== null)));

function Axis(props: { max: number; unit: string; first: string; last: string }) {
  return (
    <>
      <line x1={PAD} y1={H - PAD} x2={W} y2={H - PAD} class="axis" />
      <text x={PAD} y={12} class="tick">
        {`${round(props.max)} ${props.unit}`}
      </text>
      <text x={PAD} y={H - 6} class="tick">
        {props.first}
      </text>
      <text x={W} y={H - 6} class="tick end">
        {props.last}
      </text>
    </>
  );
}

const round = (n: number): string => (n >= 10 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(2));

/** Bars side by side per bucket, one per series. */
export function BarChart(props: { series: Series[]; unit: string; first: string; last: string; label: string; max?: number }) {
  const max = props.max ?? maxOf(props.series);
  const n = props.series[0]?.values.length ?? 0;
  const slot = (W - PAD) / Math.max(1, n);
  const bar = Math.max(1, (slot - 1) / props.series.length);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label} class="chart" preserveAspectRatio="none">
      <Axis max={max} unit={props.unit} first={props.first} last={props.last} />
      {props.series.map((s, k) =>
        s.values.map((v, i) => {
          if (v === null || v === 0) return null;
          const h = (v / max) * (H - 2 * PAD);
          return <rect x={PAD + i * slot + k * bar} y={H - PAD - h} width={bar} height={h} class={s.tone} />;
        }),
      )}
    </svg>
  );
}

/** One line per series through the buckets that have a value. */
export function LineChart(props: { series: Series[]; unit: string; first: string; last: string; label: string }) {
  const max = maxOf(props.series);
  const n = props.series[0]?.values.length ?? 0;
  const x = (i: number) => PAD + ((W - PAD) * (i + 0.5)) / Math.max(1, n);
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={props.label} class="chart" preserveAspectRatio="none">
      <Axis max={max} unit={props.unit} first={props.first} last={props.last} />
      {props.series.map((s) => {
        const points = s.values.flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`]));
        return (
          <>
            <polyline points={points.join(" ")} class={`line ${s.tone}`} />
            {s.values.map((v, i) => (v === null ? null : <circle cx={x(i)} cy={y(v)} r={2.5} class={s.tone} />))}
          </>
        );
      })}
    </svg>
  );
}

export function Legend(props: { series: Series[] }) {
  return (
    <ul class="legend">
      {props.series.map((s) => (
        <li>
          <span class={`swatch ${s.tone}`} aria-hidden="true" /> {s.label}
        </li>
      ))}
    </ul>
  );
}
