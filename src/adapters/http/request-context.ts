import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

// Only ids that are safe to echo and to log are taken from the client.
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Headers for a JSON API that never renders HTML (OWASP REST Security Cheat Sheet). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
});

/** Echoes or assigns X-Request-Id and sets the security headers every response carries. */
export async function requestContext(ctx: Context, next: Next): Promise<void> {
  const given = ctx.req.headers['x-request-id'];
  const requestId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.state.requestId = requestId;
  ctx.set('X-Request-Id', requestId);
  ctx.set(SECURITY_HEADERS);
  await next();
}
