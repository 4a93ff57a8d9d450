import type Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from 'pino';
import { respondWithErrors } from './error-responses.js';
import { exactRouter } from './exact-router.js';
import type { HttpMetrics } from './http-metrics.js';
import { RequestObserver } from './observe-requests.js';
import { requestContext } from './request-context.js';

/** Where Prometheus scrapes, on the API port or on METRICS_PORT. */
export const METRICS_ROUTE = '/metrics';

/** GET /metrics in the Prometheus text format; no key (see docs/operations.md, "Metrics", on where to expose it). */
export function addMetricsRoutes(router: Router, metrics: HttpMetrics): void {
  router.get(METRICS_ROUTE, async (ctx) => {
    const text = await metrics.render();
    ctx.status = 200;
    ctx.type = metrics.contentType;
    ctx.body = text;
  });
}

/**
 * The app for METRICS_PORT: /metrics only, with the same headers and JSON errors as the API. Its requests are
 * logged at LOG_LEVEL=debug only (scrapes at debug, anything else at info) and never counted.
 */
export function createMetricsApp(metrics: HttpMetrics, onUnexpectedError: (error: unknown) => void, logger: Logger): Koa {
  const app = new Koa();
  app.on('error', onUnexpectedError);
  const router = exactRouter();
  addMetricsRoutes(router, metrics);
  const observer = logger.isLevelEnabled('debug') ? new RequestObserver(logger, undefined, new Set([METRICS_ROUTE])) : undefined;
  app.use(requestContext({ routers: [router], ...(observer === undefined ? {} : { observer }) }));
  app.use(respondWithErrors());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
