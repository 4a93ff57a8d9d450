import type { Context, Next } from 'koa';

const ALLOW_METHODS = 'GET, HEAD, POST';
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
/** Response headers a browser script may read, beyond the CORS-safelisted ones. */
export const EXPOSE_HEADERS =
  'Location, Link, X-Request-Id, Deprecation, Sunset, Retry-After, WWW-Authenticate, RateLimit, RateLimit-Policy, Idempotent-Replayed';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS for an exact allow-list of origins; only installed when CORS_ORIGINS is set. Preflights from an
 * allowed origin are answered here, before authentication: browsers send them without credentials.
 * Anything else from other origins passes through untouched, so the browser withholds the response.
 */
export function cors(origins: readonly string[]) {
  const allowed = new Set(origins);
  return async function corsHeaders(ctx: Context, next: Next): Promise<void> {
    ctx.vary('Origin');
    const origin = ctx.get('Origin');
    if (!allowed.has(origin)) return next();
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
      return;
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    await next();
  };
}
