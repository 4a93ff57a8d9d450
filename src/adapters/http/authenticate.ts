import type { Context, Next } from 'koa';
import { InvalidApiKey } from '../../core/errors.js';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import { assertNotBlocked, consumeKeyQuota, recordAuthFailure } from './rate-limits.js';

// RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: b64token characters only.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The key in an Authorization header: undefined when absent; throws InvalidApiKey when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = BEARER.exec(header);
  if (match === null) throw new InvalidApiKey(true);
  return match[1];
}

/**
 * Every request below this point is authenticated and within its key's quota. The key's id is kept in
 * ctx.state for logs and limits. Addresses that fail too often are refused before their key is checked,
 * so a blocked guesser cannot tell a right key from a wrong one.
 */
export function authenticate(catalog: PetCatalog, limits: RateLimits) {
  return async function requireApiKey(ctx: Context, next: Next): Promise<void> {
    if (limits.authFailures !== undefined) assertNotBlocked(limits.authFailures, ctx.ip);
    try {
      ctx.state.apiKeyId = catalog.authenticate(bearerToken(ctx.req.headers.authorization));
    } catch (error) {
      if (error instanceof InvalidApiKey && limits.authFailures !== undefined) recordAuthFailure(limits.authFailures, ctx.ip);
      throw error;
    }
    if (limits.perKey !== undefined) consumeKeyQuota(ctx, limits.perKey, ctx.state.apiKeyId);
    await next();
  };
}
