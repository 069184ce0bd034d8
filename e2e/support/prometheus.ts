/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4) for tests: every line must
 * be a `# HELP`/`# TYPE` comment or a sample `name{label="value",…} number`, or it throws, so a
 * test that reads a scrape also checks that it is valid. Samples are keyed by name and labels.
 */
export interface Scrape {
  /** The sample's value, or undefined when the series is absent. Labels must match exactly. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** Every sample of a metric name, with its labels. */
  series(name: string): { labels: Record<string, string>; value: number }[];
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const COMMENT = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/;

const key = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(",")}}`;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const at = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || match.index !== at) throw new Error(`bad labels in metrics line: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_m, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

export function parsePrometheus(text: string): Scrape {
  const samples = new Map<string, number>();
  const byName = new Map<string, { labels: Record<string, string>; value: number }[]>();
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const comment = COMMENT.exec(line);
      if (!comment) throw new Error(`bad comment in metrics: ${line}`);
      if (comment[1] === "TYPE") {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(comment[3]!)) throw new Error(`bad type: ${line}`);
        types.set(comment[2]!, comment[3]!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`bad sample line in metrics: ${line}`);
    const value = Number(match[3] === "+Inf" ? Infinity : match[3] === "-Inf" ? -Infinity : match[3]);
    if (Number.isNaN(value) && match[3] !== "NaN") throw new Error(`bad value in metrics line: ${line}`);
    const labels = match[2] ? parseLabels(match[2], line) : {};
    samples.set(key(match[1]!, labels), value);
    byName.set(match[1]!, [...(byName.get(match[1]!) ?? []), { labels, value }]);
  }
  return {
    value: (name, labels = {}) => samples.get(key(name, labels)),
    series: (name) => byName.get(name) ?? [],
    types,
  };
}

/** GET a metrics endpoint and parse it (throws unless 200 with Prometheus' content type). */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status} ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(res.headers.get("content-type") ?? "")) throw new Error(`scrape ${url}: content type ${res.headers.get("content-type")}`);
  return parsePrometheus(text);
}
