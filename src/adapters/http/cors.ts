import type { Context, Next } from 'koa';

/**
 * The methods of a route table as Access-Control-Allow-Methods lists them: HEAD with GET, which the router answers
 * too. createHttpApp passes the table: importing it here would close an import cycle through openapi-headers.ts.
 */
export function allowMethodsOf(operations: readonly { readonly method: string }[]): string {
  const methods = new Set(operations.map((operation) => operation.method.toUpperCase()));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}

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
export function applyCors(ctx: Context, allowed: ReadonlySet<string>, allowMethods: string): boolean {
  ctx.vary('Origin');
  const origin = ctx.get('Origin');
  if (!allowed.has(origin)) return false;
  ctx.set('Access-Control-Allow-Origin', origin);
  if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
    ctx.vary('Access-Control-Request-Method');
    ctx.vary('Access-Control-Request-Headers');
    ctx.set({
      'Access-Control-Allow-Methods': allowMethods,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    });
    ctx.status = 204;
    return true;
  }
  ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  return false;
}

/** Middleware: CORS for the allowed origins and the route table's methods; it answers preflights, before the key check. */
export function cors(origins: readonly string[], operations: readonly { readonly method: string }[]) {
  const allowed = new Set(origins);
  const allowMethods = allowMethodsOf(operations);
  return function cors(ctx: Context, next: Next): Promise<void> {
    return applyCors(ctx, allowed, allowMethods) ? Promise.resolve() : next();
  };
}
