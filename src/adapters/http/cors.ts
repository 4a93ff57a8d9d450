import type { Context, Next } from 'koa';
import { ALL_PET_OPERATIONS, type PetOperation } from './pet-operations.js';

/** The methods of a route table, as Access-Control-Allow-Methods lists them: HEAD with GET (the router answers it). */
export function allowMethodsOf(operations: readonly PetOperation[]): string {
  const methods = new Set(operations.map((operation) => operation.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

const ALLOW_METHODS = allowMethodsOf(ALL_PET_OPERATIONS);
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
/** Response headers a browser script may read, beyond the CORS-safelisted ones. */
export const EXPOSE_HEADERS =
  'Location, Link, X-Request-Id, traceresponse, Deprecation, Sunset, Retry-After, WWW-Authenticate, RateLimit, RateLimit-Policy, Idempotent-Replayed';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for an exact allow-list of origins; only applied when CORS_ORIGINS is set. Returns true when it
 * answered a preflight (204, before authentication: browsers send preflights without credentials).
 * Requests from other origins pass through untouched, so the browser withholds the response.
 */
export function applyCors(ctx: Context, allowed: ReadonlySet<string>): boolean {
  ctx.vary('Origin');
  const origin = ctx.get('Origin');
  if (!allowed.has(origin)) return false;
  ctx.set('Access-Control-Allow-Origin', origin);
  if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
    ctx.vary('Access-Control-Request-Method');
    ctx.vary('Access-Control-Request-Headers');
    ctx.set({
      'Access-Control-Allow-Methods': ALLOW_METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    });
    ctx.status = 204;
    return true;
  }
  ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  return false;
}

/** Middleware: CORS for the allowed origins; a preflight is answered here, before the key check. */
export function cors(origins: readonly string[]) {
  const allowed = new Set(origins);
  return function cors(ctx: Context, next: Next): Promise<void> {
    return applyCors(ctx, allowed) ? Promise.resolve() : next();
  };
}
