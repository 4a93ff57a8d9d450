import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { pino } from 'pino';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { listenKoa, plainKoaRouter } from './koa-yardstick-app.js';

/*
 * The Koa + features yardstick: the plain Koa app (same routes, same JSON.stringify) with what every one of the
 * service's responses carries, written as a Koa team would with pino and prom-client, in one middleware: a request
 * id, the security headers (and getPet's deprecation notice), the service's request line through pino's
 * asynchronous destination, the request counted and timed in prom-client (the service's metric names, labels and
 * buckets). No key check, limits, exact int64 or error mapping: what those features cost any Koa app.
 */
const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'", 'Cache-Control': 'no-store' };
const GET_PET_HEADERS = {
  ...SECURITY_HEADERS,
  Deprecation: `@${Date.UTC(2026, 10, 21) / 1000}`,
  Sunset: new Date(Date.UTC(2030, 11, 5)).toUTCString(),
  Link: '</v1/pets>; rel="successor-version"',
};
const GET_PET = /^\/v1\/pets\/[^/]+$/;
// The yardstick checks no key; its lines name one as the service's do.
const API_KEY_ID = 'key_0123456789ab';

// pino's asynchronous logging as its docs show it, flushed at least every 100 ms as the service's lines are.
const destination = pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });
// Credentials censored, as the service's logger does.
const logger = pino({ level: 'info', redact: { paths: ['authorization', 'cookie', 'headers.authorization', 'headers.cookie'], censor: '[redacted]' } }, destination);
process.once('exit', () => destination.flushSync());

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const labelNames = ['method', 'route', 'status'] as const;
const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered.', labelNames, registers: [registry] });
const durations = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from receiving a request to its response being ready.',
  labelNames,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

async function features(ctx: Context, next: Next): Promise<void> {
  const started = performance.now();
  const requestId = randomUUID();
  ctx.set('X-Request-Id', requestId);
  ctx.set((ctx.method === 'GET' || ctx.method === 'HEAD') && GET_PET.test(ctx.path) ? GET_PET_HEADERS : SECURITY_HEADERS);
  await next();
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  // @koa/router names the template it dispatched to; paths no route matches are labelled 'unmatched'.
  const route: string | null = ctx.routerPath ?? null;
  const labels = { method: ctx.method, route: route ?? 'unmatched', status: ctx.status };
  requests.inc(labels);
  durations.observe(labels, durationMs / 1000);
  const clientAddress = ctx.req.socket.remoteAddress ?? null;
  logger.info({ requestId, method: ctx.method, route, status: ctx.status, durationMs, apiKeyId: API_KEY_ID, clientAddress }, 'request');
}

listenKoa(plainKoaRouter(), 'Koa + features yardstick', [features]);
