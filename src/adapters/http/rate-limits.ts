import type { Context } from 'koa';
import type { RateLimiter, WindowUse } from '../../ports/rate-limiter.js';
import type { Logger } from 'pino';
import { ApiError } from './api-error.js';
import type { RequestState } from './request-context.js';

/*
 * Abuse limits over the RateLimiter port. Headers follow the IETF RateLimit header fields draft:
 * `RateLimit-Policy: "name";q=<quota>;w=<window s>` and `RateLimit: "name";r=<remaining>;t=<seconds to reset>`.
 */

const LOW_QUOTA_SHARE = 0.1;

/**
 * Counts one request against the key's quota; throws 429 rate_limited when it is spent. The RateLimit
 * headers go out once a key has used 90% of its quota (and on every 429): clients learn in time to slow
 * down, and the common case pays for no extra headers.
 */
export function consumeKeyQuota(ctx: Context, limiter: RateLimiter, keyId: string): void {
  const use = limiter.hit(keyId);
  if (use.used > limiter.limit) throw tooManyRequests(limiter, use);
  if (limiter.limit - use.used <= limiter.limit * LOW_QUOTA_SHARE) ctx.set(quotaHeaders(limiter, use));
}

/**
 * Throws 429 while the address has failed authentication `limit` times in the window, before its key is
 * even checked: a blocked guesser cannot tell a right key from a wrong one.
 */
export function assertNotBlocked(limiter: RateLimiter, address: string): void {
  const use = limiter.peek(address);
  if (use.used >= limiter.limit) throw tooManyRequests(limiter, use);
}

/** Counts a failed authentication; the attempt past the limit (possible across instances) is refused. */
export function recordAuthFailure(limiter: RateLimiter, address: string): void {
  const use = limiter.hit(address);
  if (use.used > limiter.limit) throw tooManyRequests(limiter, use);
}

function quotaHeaders(limiter: RateLimiter, use: WindowUse): Record<string, string> {
  return {
    'RateLimit-Policy': `"${limiter.name}";q=${limiter.limit};w=${limiter.windowSeconds}`,
    RateLimit: `"${limiter.name}";r=${Math.max(0, limiter.limit - use.used)};t=${Math.ceil(use.resetInMs / 1000)}`,
  };
}

/** A 429: which limit refused the request and what it allows, for the metrics and the debug log. */
export class RateLimited extends ApiError {
  constructor(
    readonly limit: string,
    readonly quota: number,
    readonly windowSeconds: number,
    readonly retryAfter: string,
    headers: Readonly<Record<string, string>>,
  ) {
    super(429, 'rate_limited', `Too many requests; retry in ${retryAfter} s.`, headers);
  }
}

/** At LOG_LEVEL=debug: one line per refusal, naming the limit, what it allows, and whom it refused. */
export function refusalLog(logger: Logger) {
  return (ctx: Context, refusal: RateLimited): void => {
    const { requestId, apiKeyId, clientAddress } = ctx.state as RequestState;
    const { limit, quota, windowSeconds, retryAfter } = refusal;
    logger.debug({ requestId, limit, quota, windowSeconds, retryAfterSeconds: Number(retryAfter), apiKeyId, clientAddress }, 'rate limited');
  };
}

function tooManyRequests(limiter: RateLimiter, use: WindowUse): RateLimited {
  const retryAfter = String(Math.max(1, Math.ceil(use.resetInMs / 1000)));
  return new RateLimited(limiter.name, limiter.limit, limiter.windowSeconds, retryAfter, {
    ...quotaHeaders(limiter, { ...use, used: Math.max(use.used, limiter.limit) }),
    'Retry-After': retryAfter,
  });
}
