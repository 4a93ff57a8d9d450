import type { Context } from 'koa';
import type { ApiKeyId } from '../../ports/api-key-verifier.js';
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
 * The id of the caller's key, counted against its quota; throws when the request may go no further.
 * Synchronous, like the limiter it asks: no promise per request. Addresses that fail too often are
 * refused before their key is checked, so a blocked guesser cannot tell a right key from a wrong one.
 */
export function authenticateRequest(ctx: Context, catalog: PetCatalog, limits: RateLimits, address: string): ApiKeyId {
  const failures = limits.authFailures;
  if (failures !== undefined) assertNotBlocked(failures, address);
  let keyId: ApiKeyId;
  try {
    keyId = catalog.authenticate(bearerToken(ctx.req.headers.authorization));
  } catch (error) {
    if (error instanceof InvalidApiKey && failures !== undefined) recordAuthFailure(failures, address);
    throw error;
  }
  if (limits.perKey !== undefined) consumeKeyQuota(ctx, limits.perKey, keyId);
  return keyId;
}
