import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Upper bounds of the request duration histogram, in seconds. */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

type RequestLabel = 'method' | 'route' | 'status';

export interface CounterDefinition {
  readonly name: string;
  readonly help: string;
  /** Few values each: every combination is a series. */
  readonly labelNames: readonly string[];
}

/** One (method, route, status) series: its labels, its histogram child, and the requests not yet counted. */
interface RequestSeries {
  readonly labels: Readonly<Record<RequestLabel, string>>;
  readonly duration: Histogram.Internal<RequestLabel>;
  uncounted: number;
}

/**
 * Prometheus metrics of one app instance: its own registry, so several apps in one process (tests)
 * never collide on metric names. Routes are labelled by template, never by raw path, to bound cardinality.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  // Methods, route templates and statuses are few, so this stays small; labels() validates and hashes on every
  // call. Keyed level by level: the method and template strings are the same objects on every request, so no
  // key is built per request.
  private readonly requestSeries = new Map<string, Map<string, Map<number, RequestSeries>>>();
  // Counted as a plain number per series and handed to prom-client when scraped (its documented collect
  // hook): one prom-client call per request, the histogram's, instead of two.
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      for (const byRoute of this.requestSeries.values()) {
        for (const byStatus of byRoute.values()) {
          for (const series of byStatus.values()) {
            if (series.uncounted > 0) this.requests.inc(series.labels, series.uncounted);
            series.uncounted = 0;
          }
        }
      }
    },
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its response being ready, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [...DURATION_BUCKETS],
    registers: [this.registry],
  });
  private readonly rateLimitRefusals = new Counter({
    name: 'animal_store_rate_limit_refusals_total',
    help: 'Requests refused with 429, by the limit that refused them.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  /** countPets is asked at every scrape; when it fails the gauge reads NaN rather than a stale number. */
  constructor(countPets: () => Promise<number>) {
    new Gauge({
      name: 'animal_store_pets',
      help: 'Animals stored (NaN when storage did not answer).',
      registers: [this.registry],
      async collect() {
        this.set(await countPets().catch(() => Number.NaN));
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts one response; times it too unless `seconds` is undefined (nothing was read, so nothing to time). */
  observeRequest(method: string, route: string, status: number, seconds: number | undefined): void {
    let byRoute = this.requestSeries.get(method);
    if (byRoute === undefined) this.requestSeries.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) {
      const labels = { method, route, status: String(status) };
      byStatus.set(status, (series = { labels, duration: this.durations.labels(labels), uncounted: 0 }));
    }
    series.uncounted++;
    if (seconds !== undefined) series.duration.observe(seconds);
  }

  /** One request refused by a rate limit, named as in its RateLimit-Policy header. */
  countRateLimitRefusal(limit: string): void {
    this.rateLimitRefusals.inc({ limit });
  }

  /** Registers a counter another part contributes (a storage backend's round trips); returns what counts one event. */
  addCounter({ name, help, labelNames }: CounterDefinition): (labels: Readonly<Record<string, string>>) => void {
    const counter = new Counter({ name, help, labelNames, registers: [this.registry] });
    return (labels) => counter.inc(labels);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
