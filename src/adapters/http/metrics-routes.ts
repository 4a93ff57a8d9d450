import Router from '@koa/router';
import Koa from 'koa';
import { respondWithErrors } from './error-responses.js';
import type { HttpMetrics } from './http-metrics.js';
import { requestContext } from './request-context.js';

/** GET /metrics in the Prometheus text format; no key (see the README on where to expose it). */
export function metricsRoutes(metrics: HttpMetrics): Router {
  const router = new Router({ sensitive: true, strict: true });
  router.get('/metrics', async (ctx) => {
    const text = await metrics.render();
    ctx.status = 200;
    ctx.type = metrics.contentType;
    ctx.body = text;
  });
  return router;
}

/** The app for METRICS_PORT: /metrics only, with the same headers and JSON errors as the API. */
export function createMetricsApp(metrics: HttpMetrics, onUnexpectedError: (error: unknown) => void): Koa {
  const app = new Koa();
  app.silent = true;
  const router = metricsRoutes(metrics);
  app.use(requestContext);
  app.use(respondWithErrors(onUnexpectedError));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
