import Router from '@koa/router';
import Koa from 'koa';
import { respondWithErrors } from './error-responses.js';
import type { HttpMetrics } from './http-metrics.js';
import { requestContext } from './request-context.js';

/** GET /metrics in the Prometheus text format; no key (see docs/operations.md, "Metrics", on where to expose it). */
export function addMetricsRoutes(router: Router, metrics: HttpMetrics): void {
  router.get('/metrics', async (ctx) => {
    const text = await metrics.render();
    ctx.status = 200;
    ctx.type = metrics.contentType;
    ctx.body = text;
  });
}

/** The app for METRICS_PORT: /metrics only, with the same headers and JSON errors as the API; scrapes are not logged. */
export function createMetricsApp(metrics: HttpMetrics, onUnexpectedError: (error: unknown) => void): Koa {
  const app = new Koa();
  app.on('error', onUnexpectedError);
  const router = new Router({ sensitive: true, strict: true });
  addMetricsRoutes(router, metrics);
  app.use(requestContext({ router }));
  app.use(respondWithErrors());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
