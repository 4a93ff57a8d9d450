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

export interface RateLimits {
  /** Requests per API key per window; absent when limits are off (RATE_LIMIT_PER_MINUTE=0). */
  readonly perKey?: NamedLimiter;
  /** Failed authentications per client address per window, so keys cannot be guessed at speed. */
  readonly authFailures?: NamedLimiter;
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

/** Refuses every authentication attempt from an address that failed too often. */
export async function assertAddressNotBlocked({ name, limiter }: NamedLimiter, address: string): Promise<void> {
  const result = await settle(limiter.get(address));
  if (result !== undefined && result !== null && result.consumedPoints >= limiter.points) {
    throw tooManyRequests(quotaHeaders(name, limiter, result), result);
  }
}

export async function recordAuthFailure({ limiter }: NamedLimiter, address: string): Promise<void> {
  await settle(limiter.penalty(address, 1));
}

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
