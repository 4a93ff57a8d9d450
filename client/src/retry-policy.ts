/** How a call retries (see README, "Retries and idempotency"). */
export interface RetryOptions {
  /** Attempts in all, the first included: 1 turns retries off. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff before the first retry, doubled before each further one, with jitter (50 to 100%). Default 250 ms. */
  readonly baseDelayMs?: number;
  /** Cap on one backoff delay. Default 4000 ms. A longer Retry-After is still honoured within maxTotalDelayMs. */
  readonly maxDelayMs?: number;
  /** Cap on the time spent waiting between attempts of one call; a wait that would pass it is not made. Default 15000 ms. */
  readonly maxTotalDelayMs?: number;
  /** Waits `ms` milliseconds, rejecting with the signal's reason on abort. Default: a timer. Tests pass a recorder. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type RetryPolicy = Required<RetryOptions>;

export const DEFAULT_RETRY = Object.freeze({ maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 4000, maxTotalDelayMs: 15_000 });

export function resolveRetryPolicy(options: RetryOptions = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY, sleep: sleepFor, ...withoutUndefined(options) };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) throw new RangeError('retry.maxAttempts must be an integer of at least 1');
  for (const key of ['baseDelayMs', 'maxDelayMs', 'maxTotalDelayMs'] as const) {
    if (!(policy[key] >= 0)) throw new RangeError(`retry.${key} must be a number of at least 0`);
  }
  return policy;
}

/** The backoff before retry number `retry` (1 for the first): exponential, capped, with jitter. */
export function backoffDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** Retry-After (RFC 9110 §10.2.3) in milliseconds: delay-seconds or an HTTP-date; undefined when absent or invalid. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
