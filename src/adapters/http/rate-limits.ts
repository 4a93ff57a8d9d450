import type { Context } from 'koa';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from './api-error.js';

/*
 * Abuse limits, with rate-limiter-flexible (memory or MongoDB store, following STORAGE). Headers follow
 * the IETF RateLimit header fields draft: `RateLimit-Policy: "name";q=<quota>;w=<window s>` and
 * `RateLimit: "name";r=<remaining>;t=<seconds to reset>`.
 */

export interface NamedLimiter {
  readonly name: string;
  readonly limiter: RateLimiterAbstract;
}

export interface RateLimitSettings {
  /** Requests per API key per minute; 0 turns every limit off. */
  readonly perMinute: number;
  /** Failed authentications per client address per minute. */
  readonly authFailuresPerMinute: number;
}

export interface RateLimits {
  /** Requests per API key per window; absent when limits are off (RATE_LIMIT_PER_MINUTE=0). */
  readonly perKey?: NamedLimiter;
  /** Failed authentications per client address per window, so keys cannot be guessed at speed. */
  readonly authFailures?: AuthFailureLimit;
}

/**
 * Counts one request against the key's quota; throws 429 rate_limited when it is spent. The RateLimit
 * headers go out once a key has used 90% of its quota (and on every 429): clients learn in time to slow
 * down, and the common case pays for no extra headers.
 */
export async function consumeKeyQuota(ctx: Context, { name, limiter }: NamedLimiter, keyId: string): Promise<void> {
  const result = await settle(limiter.consume(keyId));
  if (result === undefined) return;
  if (result.consumedPoints > limiter.points) throw tooManyRequests(quotaHeaders(name, limiter, result), result);
  if (result.remainingPoints <= limiter.points * LOW_QUOTA_SHARE) ctx.set(quotaHeaders(name, limiter, result));
}

const LOW_QUOTA_SHARE = 0.1;

/**
 * Failed authentications per client address. Failures are counted in the limiter's store (shared by every
 * instance on MongoDB); the block they lead to is remembered in this process, so the common request, with a
 * right key, costs no store round trip. An instance learns of a block from the first failure it sees past
 * the limit, and refuses that attempt itself.
 */
export class AuthFailureLimit implements NamedLimiter {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    readonly name: string,
    readonly limiter: RateLimiterAbstract,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 while the address is blocked, before its key is even checked. */
  assertNotBlocked(address: string): void {
    const until = this.blockedUntil.get(address);
    if (until === undefined) return;
    const left = until - this.now();
    if (left > 0) throw this.refusal(new RateLimiterRes(0, left, this.limiter.points + 1));
    this.blockedUntil.delete(address);
  }

  /** Counts a failure; from the limit on the address is blocked, and the attempt past it is refused. */
  async recordFailure(address: string): Promise<void> {
    const result = await settle(this.limiter.penalty(address, 1));
    if (result === undefined || result.consumedPoints < this.limiter.points) return;
    if (this.blockedUntil.size >= MAX_REMEMBERED_BLOCKS) this.forgetExpired();
    this.blockedUntil.set(address, this.now() + result.msBeforeNext);
    if (result.consumedPoints > this.limiter.points) throw this.refusal(result);
  }

  private refusal(result: RateLimiterRes): ApiError {
    return tooManyRequests(quotaHeaders(this.name, this.limiter, result), result);
  }

  private forgetExpired(): void {
    const now = this.now();
    for (const [address, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(address);
  }
}

const MAX_REMEMBERED_BLOCKS = 10_000;

function quotaHeaders(name: string, limiter: RateLimiterAbstract, result: RateLimiterRes): Record<string, string> {
  return {
    'RateLimit-Policy': `"${name}";q=${limiter.points};w=${limiter.duration}`,
    RateLimit: `"${name}";r=${Math.max(0, result.remainingPoints)};t=${Math.ceil(result.msBeforeNext / 1000)}`,
  };
}

function tooManyRequests(headers: Record<string, string>, result: RateLimiterRes): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(result.msBeforeNext / 1000)));
  return new ApiError(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, {
    ...headers,
    'Retry-After': retryAfter,
  });
}

// rate-limiter-flexible rejects with a RateLimiterRes when the quota is spent and with an Error when its
// store fails. A failing store must not take the API down with it: the request goes through uncounted.
async function settle<T>(pending: Promise<T>): Promise<T | RateLimiterRes | undefined> {
  try {
    return await pending;
  } catch (rejection) {
    return rejection instanceof RateLimiterRes ? rejection : undefined;
  }
}
