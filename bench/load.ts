import autocannon, { type Request } from 'autocannon';

/** One request to send; a workload hands out the same one every time or a fresh one per request. */
export interface RequestSpec {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
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
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly reqPerSec: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly errors: number;
  readonly non2xx: number;
}

// A fixed request is built once; a varying one through setupRequest, which costs the client more per request.
function toAutocannon(source: RequestSource): Request {
  if (typeof source !== 'function') return { ...source };
  return { method: 'GET', setupRequest: (req) => ({ ...req, ...source() }) };
}

/** Runs autocannon closed-loop (each connection sends its next request when the last one is answered). */
export function fire(options: LoadOptions): Promise<LoadResult> {
  const times: number[] = [];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        // autocannon stops at its first sampling tick after the duration or the amount: tick often.
        sampleInt: 100,
        ...(options.amount === undefined ? { duration: options.duration ?? 5 } : { amount: options.amount }),
        headers: requestHeaders(options.apiKey),
        requests: [toAutocannon(options.source)],
      },
      (error, result) => {
        if (error) return reject(error);
        const seconds = (performance.now() - started) / 1000;
        resolve({ requests: result.requests.total, seconds, reqPerSec: result.requests.total / seconds, ...latencies(times), errors: result.errors, non2xx: result.non2xx });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
}

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

/**
 * Adds `count` pets as fast as the server takes them: many keep-alive connections. Not pipelined: with
 * `amount`, autocannon 8 stops counting before the last pipelined responses arrive, and the count must be exact.
 */
export async function preload(url: string, apiKey: string, count: number, firstNumber: number): Promise<LoadResult> {
  let n = firstNumber;
  const source = () => ({ method: 'POST', path: '/v1/pets', body: newPetBody(n++) }) as const;
  const result = await fire({ url, apiKey, connections: Math.min(32, count), amount: count, source });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`preload of ${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  }
  return result;
}
