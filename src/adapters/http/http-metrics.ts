import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { RequestTallies } from './request-tallies.js';

/**
 * Prometheus metrics of one app instance: its own registry, so several apps in one process (tests)
 * never collide on metric names. Routes are labelled by template, never by raw path, to bound cardinality.
 */
export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests = new RequestTallies(this.registry);

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
    this.requests.observe(method, route, status, seconds);
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
