import type { Registry } from 'prom-client';

/** Upper bounds of the request duration histogram, in seconds. */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One (method, route, status) series: plain numbers, counted on the hot path. */
class Series {
  count = 0;
  /** Responses that were timed: the server's own answers to clients it cut off are counted, not timed. */
  timed = 0;
  sum = 0;
  /** Timed responses per bucket (not cumulative); the last slot is past the largest bound. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  constructor(readonly labels: Readonly<Record<'method' | 'route' | 'status', string>>) {}
}

/** A value as prom-client's registry renders it: `labels` first, then the series' `sharedLabels`. */
interface Sample {
  readonly metricName: string;
  readonly labels: Record<string, string | number>;
  readonly sharedLabels: Record<string, string>;
  readonly value: number;
}

/**
 * The request counter and duration histogram, counted in plain fields and handed to the registry only
 * when it is scraped. prom-client's own labelled children validate and hash their labels on every
 * observation (about 1.5 µs a request, measured); here a request costs three small map lookups and three additions.
 * The text the registry renders is the one a prom-client Counter and Histogram of these names would give.
 */
export class RequestTallies {
  /** Every series, in the order first seen (the order prom-client renders its children in). */
  private readonly series: Series[] = [];
  /**
   * The series by route, method and status. Nested rather than one key per response: method and route are the
   * same few strings every time (their hashes are cached in them), where a joined key is a new string to build
   * and hash on every response.
   */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();

  constructor(registry: Registry) {
    registry.registerMetric(this.metric('http_requests_total', 'HTTP requests answered, by method, route template and status.', 'counter', () =>
      this.series.map((s) => ({ metricName: 'http_requests_total', labels: { ...s.labels }, sharedLabels: {}, value: s.count })),
    ));
    registry.registerMetric(this.metric(
      'http_request_duration_seconds',
      'Time from receiving a request to its response being ready, by method, route template and status.',
      'histogram',
      () => this.series.filter((s) => s.timed > 0).flatMap(histogramSamples),
    ));
  }

  /** Counts one response; times it too unless `seconds` is undefined (nothing was read, so nothing to time). */
  observe(method: string, route: string, status: number, seconds: number | undefined): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      series = new Series({ method, route, status: String(status) });
      byStatus.set(status, series);
      this.series.push(series);
    }
    series.count++;
    if (seconds === undefined) return;
    series.timed++;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]!++;
  }

  // The registry asks a metric for its name, help, type and values (prom-client's MetricObject).
  private metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) {
    const metric = { name, help, type, aggregator: 'sum' as const, get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }) };
    return metric as unknown as Parameters<Registry['registerMetric']>[0];
  }
}

function histogramSamples(series: Series): Sample[] {
  const bucketName = 'http_request_duration_seconds_bucket';
  const samples: Sample[] = [];
  let cumulative = 0;
  DURATION_BUCKETS.forEach((bound, i) => {
    cumulative += series.buckets[i]!;
    samples.push({ metricName: bucketName, labels: { le: bound }, sharedLabels: series.labels, value: cumulative });
  });
  samples.push(
    { metricName: bucketName, labels: { le: '+Inf' }, sharedLabels: series.labels, value: series.timed },
    { metricName: 'http_request_duration_seconds_sum', labels: {}, sharedLabels: series.labels, value: series.sum },
    { metricName: 'http_request_duration_seconds_count', labels: {}, sharedLabels: series.labels, value: series.timed },
  );
  return samples;
}
