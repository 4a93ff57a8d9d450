import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';

// Only ids that are safe to echo and to log are taken from the client.
const CLIENT_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Headers for a JSON API that never renders HTML (OWASP REST Security Cheat Sheet). CSP frame-ancestors
 * replaces X-Frame-Options, and a JSON body has no links to leak a referrer through.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cache-Control': 'no-store',
});

const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/** Echoes or assigns X-Request-Id and sets the security headers every response carries. */
export async function requestContext(ctx: Context, next: Next): Promise<void> {
  const given = ctx.req.headers['x-request-id'];
  const requestId = typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
  ctx.state.requestId = requestId;
  // Straight to Node: these run on every request, and Koa's ctx.set adds a layer of checks per header.
  const res = ctx.res;
  res.setHeader('X-Request-Id', requestId);
  for (const [name, value] of SECURITY_HEADER_ENTRIES) res.setHeader(name, value);
  await next();
}
