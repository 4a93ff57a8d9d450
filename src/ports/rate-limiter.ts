/** How much of the current window one key has used. */
export interface WindowUse {
  /** Hits counted in the current window (this one included, for `hit`). */
  readonly used: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  readonly resetInMs: number;
}

/**
 * Counts hits per key in fixed windows of `windowSeconds`. Synchronous on purpose: a request never waits on
 * a store for its count. Adapters that share counts between instances exchange them in the background, so
 * a key may exceed `limit` by what other instances admitted since their last exchange (each adapter states
 * its tolerance). Every adapter must pass test/contract/rate-limiter-contract.ts.
 */
export interface RateLimiter {
  /** Names the limit in RateLimit headers. */
  readonly name: string;
  /** Hits allowed per window. */
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one hit for `key` and returns the window's use, this hit included. */
  hit(key: string): WindowUse;
  /** The window's use for `key`, without counting. */
  peek(key: string): WindowUse;
  /** Stops background work (sweeps, exchanges); idempotent. */
  close(): Promise<void>;
}

export interface RateLimits {
  /** Requests per API key per window; absent when limits are off (RATE_LIMIT_PER_MINUTE=0). */
  readonly perKey?: RateLimiter;
  /** Failed authentications per client address per window, so keys cannot be guessed at speed. */
  readonly authFailures?: RateLimiter;
}

export interface RateLimitSettings {
  /** Requests per API key per minute; 0 turns every limit off. */
  readonly perMinute: number;
  /** Failed authentications per client address per minute. */
  readonly authFailuresPerMinute: number;
}
