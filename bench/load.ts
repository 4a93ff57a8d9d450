import autocannon, { type Request } from 'autocannon';

export interface LoadOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly connections: number;
  /** Seconds; ignored when `amount` is set. */
  readonly duration?: number;
  /** Exactly this many requests, then stop. */
  readonly amount?: number;
  readonly pipelining?: number;
  readonly request: Request;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly reqPerSec: number;
  /** Milliseconds, from every response's own timing (autocannon's histogram rounds to whole ms). */
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** Runs autocannon on one request shape and returns its figures. */
export function fire(options: LoadOptions): Promise<LoadResult> {
  const times: number[] = [];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: options.pipelining ?? 1,
        ...(options.amount === undefined ? { duration: options.duration ?? 5 } : { amount: options.amount }),
        headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
        requests: [options.request],
      },
      (error, result) => {
        if (error) return reject(error);
        const seconds = (performance.now() - started) / 1000;
        times.sort((a, b) => a - b);
        resolve({
          requests: result.requests.total,
          seconds,
          reqPerSec: result.requests.total / seconds,
          p50: percentile(times, 0.5),
          p99: percentile(times, 0.99),
          errors: result.errors,
          non2xx: result.non2xx,
        });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
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
  const result = await fire({
    url,
    apiKey,
    connections: 32,
    amount: count,
    request: { method: 'POST', path: '/v1/pets', setupRequest: (req) => ({ ...req, body: newPetBody(n++) }) },
  });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`preload of ${url}: ${result.errors} errors, ${result.non2xx} non-2xx responses`);
  }
  return result;
}

