import { timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import type { ApiKeyId } from '../../ports/api-key-verifier.js';
import { InvalidApiKey } from '../../core/errors.js';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import type { HttpMetrics } from './http-metrics.js';
import { assertNotBlocked, consumeKeyQuota, RateLimited, recordAuthFailure } from './rate-limits.js';
import type { RequestState } from './request-context.js';

/** The Authorization header a connection last proved (its bytes, as compared), with its key's id. */
interface ProvenKey {
  readonly header: Buffer;
  readonly keyId: ApiKeyId;
}
const PROVEN_KEY = Symbol('key proved on this connection');
type KeyedSocket = Socket & { [PROVEN_KEY]?: ProvenKey };

// RFC 9110 §11.1: the scheme is case-insensitive; RFC 6750 §2.1: b64token characters only.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The key in an Authorization header: undefined when absent; throws InvalidApiKey when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = BEARER.exec(header);
  if (match === null) throw new InvalidApiKey(true);
  return match[1];
}

/** Paths under /v1 that need no key: the published contract. */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);

export interface ApiKeyDeps {
  readonly catalog: PetCatalog;
  readonly rateLimits: RateLimits;
  /** Counts 429s by the limit that refused them; undefined when METRICS=off. */
  readonly metrics?: HttpMetrics;
  /** Logs each 429 (refusalLog); undefined below LOG_LEVEL=debug. */
  readonly logRefusal?: (ctx: Context, refusal: RateLimited) => void;
}

/**
 * Middleware: every path under /v1 but the document needs a valid key within its quota (before routing, so a
 * caller without a key learns nothing else). The key's id goes to ctx.state.apiKeyId for the log line.
 */
export function requireApiKey(deps: ApiKeyDeps) {
  return function apiKey(ctx: Context, next: Next): Promise<void> {
    const path = ctx.path;
    if ((path === '/v1' || path.startsWith('/v1/')) && !PUBLIC_PATHS.has(path)) {
      try {
        authenticateRequest(ctx, deps.catalog, deps.rateLimits);
      } catch (error) {
        if (error instanceof RateLimited) {
          deps.metrics?.countRateLimitRefusal(error.limit);
          deps.logRefusal?.(ctx, error);
        }
        throw error;
      }
    }
    return next();
  };
}

/**
 * Proves the caller's key (its id in ctx.state.apiKeyId) and counts it against its quota; throws when the
 * request may go no further. Synchronous, like the limiter it asks: no promise per request. Addresses that fail
 * too often are refused before their key is checked, so a blocked guesser cannot tell a right key from a wrong one.
 */
function authenticateRequest(ctx: Context, catalog: PetCatalog, limits: RateLimits): void {
  const state = ctx.state as RequestState;
  const address = state.clientAddress;
  const failures = limits.authFailures;
  if (failures !== undefined) assertNotBlocked(failures, address);
  const header = ctx.req.headers.authorization;
  const socket = ctx.req.socket as KeyedSocket;
  let keyId: ApiKeyId;
  // A keep-alive connection sends the same header on every request: once the key was proved on it, the
  // SHA-256 and the comparisons with every configured key run once per connection, not per request. The
  // comparison takes the same time wherever the texts differ: behind a proxy that reuses one connection
  // for many callers, the header it holds may be someone else's.
  const proven = socket[PROVEN_KEY];
  if (proven !== undefined && header !== undefined && sameBytes(proven.header, header)) keyId = proven.keyId;
  else {
    try {
      keyId = catalog.authenticate(bearerToken(header));
    } catch (error) {
      if (error instanceof InvalidApiKey && failures !== undefined) recordAuthFailure(failures, address);
      throw error;
    }
    socket[PROVEN_KEY] = { header: headerBytes(header!), keyId };
  }
  state.apiKeyId = keyId;
  if (limits.perKey !== undefined) consumeKeyQuota(ctx, limits.perKey, keyId);
}

/** Equality in time that depends on the lengths only, not on where the header differs from the proven one. */
function sameBytes(proven: Buffer, header: string): boolean {
  const presented = headerBytes(header);
  return presented.length === proven.length && timingSafeEqual(presented, proven);
}

// Node hands header values over as latin1 text, one character per byte.
const headerBytes = (header: string) => Buffer.from(header, 'latin1');
