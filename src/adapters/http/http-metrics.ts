import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const LABELS = ['method', 'route', 'status'] as const;

/**
 * Prometheus metrics of one app instance: its own registry, so several apps in one process (tests)
 * never collide on metric names. Routes are labelled by template, never by raw path, to bound cardinality.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: LABELS,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its response being ready, by method, route template and status.',
    labelNames: LABELS,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
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

  /** Label children per (method, route, status): bounded by the routes, and cheaper than labels per call. */
  private readonly series = new Map<string, { readonly counter: Counter.Internal; readonly histogram: Histogram.Internal<(typeof LABELS)[number]> }>();

  /** Counts one response; times it too unless `seconds` is undefined (nothing was read, so nothing to time). */
  observeRequest(method: string, route: string, status: number, seconds: number | undefined): void {
    const key = `${method} ${route} ${status}`;
    let series = this.series.get(key);
    if (series === undefined) {
      const labels = [method, route, String(status)] as const;
      series = { counter: this.requests.labels(...labels), histogram: this.durations.labels(...labels) };
      this.series.set(key, series);
    }
    series.counter.inc();
    if (seconds !== undefined) series.histogram.observe(seconds);
  }

  private readonly mongoCommands = new Counter({
    name: 'animal_store_mongodb_commands_total',
    help: 'Commands sent to MongoDB (round trips), by command name.',
    labelNames: ['command'] as const,
    registers: [this.registry],
  });
  private readonly mongoCommandSeries = new Map<string, () => void>();

  /** One round trip to MongoDB; command names are the driver's few (find, insert, update...), so the labels stay bounded. */
  countMongoCommand(command: string): void {
    let count = this.mongoCommandSeries.get(command);
    if (count === undefined) {
      const child = this.mongoCommands.labels(command);
      count = () => child.inc();
      this.mongoCommandSeries.set(command, count);
    }
    count();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
