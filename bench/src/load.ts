import { RawHttpConnection, rawRequest } from './raw-http-client.js';

/** One request to send; a workload hands out the same one every time or a fresh one per request. */
export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  /** Sent besides the common headers (an Idempotency-Key). */
  readonly headers?: Readonly<Record<string, string>>;
}
export type RequestSource = RequestSpec | (() => RequestSpec);

export const nextRequest = (source: RequestSource): RequestSpec => (typeof source === 'function' ? source() : source);

/** Every server gets the same headers; the yardsticks ignore Authorization. */
export const requestHeaders = (apiKey: string) => ({ authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' });

export interface LoadOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly connections: number;
  /** Seconds; ignored when `amount` is set. */
  readonly duration?: number;
  /** Exactly this many requests, then stop. */
  readonly amount?: number;
  readonly source: RequestSource;
  /** Where each answered request's latency (ms) goes: a server's turns of one run share one (rounds.ts). */
  readonly times?: number[];
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly reqPerSec: number;
  /** Milliseconds, from handing a request to its connection to the response's last byte. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  readonly non2xx: number;
}

/**
 * Closed loop: each of `connections` keep-alive connections sends its next request as soon as the last one
 * is answered, for `duration` seconds or until `amount` requests have been sent (and answered).
 *
 * The connections are raw-http-client.ts's, as the paced runs' are, not autocannon's: autocannon parses every
 * response with http-parser-js, a cost per header line, and on get (13 header lines from the service, 5 from
 * plain Koa) it ran at 100% of its core while the service's sat at 81 to 84%, so get's req/s measured the
 * generator. With these connections every server reaches 96 to 97% of its core on every workload.
 */
export function fire(options: LoadOptions): Promise<LoadResult> {
  const { hostname, port, host } = new URL(options.url);
  const headers = requestHeaders(options.apiKey);
  const fixed = typeof options.source === 'function' ? undefined : toRaw(host, headers, options.source);
  const times = options.times ?? [];
  const counts = { sent: 0, answered: 0, errors: 0, non2xx: 0 };
  const started = performance.now();
  const end = options.amount === undefined ? started + (options.duration ?? 5) * 1000 : Infinity;
  const more = () => (options.amount === undefined ? performance.now() < end : counts.sent < options.amount);
  return new Promise((resolve) => {
    let open = options.connections;
    const next = (connection: RawHttpConnection) => {
      if (!more()) {
        connection.destroy();
        if (--open > 0) return;
        const seconds = (performance.now() - started) / 1000;
        const requests = counts.answered - counts.errors;
        return resolve({ requests, seconds, reqPerSec: requests / seconds, ...latencies(times), errors: counts.errors, non2xx: counts.non2xx });
      }
      const request = fixed ?? toRaw(host, headers, nextRequest(options.source));
      const sentAt = performance.now();
      counts.sent++;
      connection.send(request, (answer) => {
        counts.answered++;
        if ('error' in answer) {
          counts.errors++;
          connection.destroy();
          return next(new RawHttpConnection(hostname, Number(port)));
        }
        times.push(performance.now() - sentAt);
        if (answer.status < 200 || answer.status > 299) counts.non2xx++;
        next(connection);
      });
    };
    for (let i = 0; i < options.connections; i++) next(new RawHttpConnection(hostname, Number(port)));
  });
}

const toRaw = (host: string, headers: Readonly<Record<string, string>>, spec: RequestSpec) =>
  rawRequest(host, spec.method, spec.path, spec.headers === undefined ? headers : { ...headers, ...spec.headers }, spec.body);

/** p50, p99 and max of latencies in ms (sorts the array). */
export function latencies(times: number[]): { p50: number; p99: number; max: number } {
  times.sort((a, b) => a - b);
  const at = (p: number) => (times.length === 0 ? NaN : times[Math.min(times.length - 1, Math.floor(p * times.length))]!);
  return { p50: at(0.5), p99: at(0.99), max: times.length === 0 ? NaN : times.at(-1)! };
}

const STATUSES = ['available', 'pending', 'sold', undefined] as const;

/** A NewPet body; one pet in four has no status. */
export function newPetBody(n: number): string {
  const status = STATUSES[n % STATUSES.length];
  return JSON.stringify({ name: `pet ${n}`, categoryId: 1 + (n % 7), ...(status === undefined ? {} : { status }) });
}

/** Adds `count` pets as fast as the server takes them: many keep-alive connections, one request at a time each. */
export async function preload(url: string, apiKey: string, count: number, firstNumber: number): Promise<LoadResult> {
  let n = firstNumber;
  const source = () => ({ method: 'POST', path: '/v1/pets', body: newPetBody(n++) }) as const;
  const result = await fire({ url, apiKey, connections: Math.min(32, count), amount: count, source });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`preload of ${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  }
  return result;
}
