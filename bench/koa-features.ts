import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { HttpMetrics } from '../src/adapters/http/http-metrics.js';
import { dispatchedRoute, RequestObserver } from '../src/adapters/http/observe-requests.js';
import { fixedHeadersOf } from '../src/adapters/http/request-context.js';
import { createLogger, msSince } from '../src/telemetry/logger.js';
import { listenKoa, plainKoaRouter } from './koa-yardstick-app.js';

/*
 * The Koa + features yardstick: the plain Koa app (same routes, same JSON.stringify) with what every one of the
 * service's responses carries, through the service's own modules and in one middleware: a request id, the security
 * headers (and getPet's deprecation notice), the request line through the service's pino logger and its batched
 * destination, the request counted and timed through the service's prom-client metrics. No key check, limits,
 * exact int64 or error mapping: what those features cost any Koa app, the floor under the service's own code.
 */
const logger = await createLogger({ appEnv: 'production', logLevel: 'info', logFormat: 'json' });
const observer = new RequestObserver(logger, new HttpMetrics(async () => 0));
// The yardstick checks no key; its lines name one as the service's do.
const API_KEY_ID = 'key_0123456789ab';

async function features(ctx: Context, next: Next): Promise<void> {
  const started = performance.now();
  const requestId = randomUUID();
  ctx.set('X-Request-Id', requestId);
  ctx.set(fixedHeadersOf(ctx.method, ctx.path));
  await next();
  const clientAddress = ctx.req.socket.remoteAddress ?? null;
  observer.record({ requestId, method: ctx.method, route: dispatchedRoute(ctx), status: ctx.status, code: null, durationMs: msSince(started), apiKeyId: API_KEY_ID, clientAddress });
}

listenKoa(plainKoaRouter(), 'Koa + features yardstick', [features]);
