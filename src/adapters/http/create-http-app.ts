import Router from '@koa/router';
import type Koa from 'koa';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import { trustedProxyList } from './client-address.js';
import { docsRoutes } from './docs-routes.js';
import { FrameKoa } from './frame-koa.js';
import type { IdempotencySettings } from './idempotency.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import type { HttpMetrics } from './http-metrics.js';
import { metricsRoutes } from './metrics-routes.js';
import { RequestObserver } from './observe-requests.js';
import type { OpenApiServers } from './openapi-document.js';
import { openApiRoutes } from './openapi-routes.js';
import { petRoutes } from './pet-routes.js';
import { requestFrame } from './request-frame.js';

export interface HttpAppDeps {
  readonly catalog: PetCatalog;
  readonly readiness: Readiness;
  readonly clock: Clock;
  readonly idempotency: IdempotencySettings;
  readonly rateLimits: RateLimits;
  /** Base addresses published in the OpenAPI document. */
  readonly servers: OpenApiServers;
  /** Receives every error that became a 500; the client only sees a generic message. */
  readonly onUnexpectedError: (error: unknown, ctx: Context) => void;
  readonly logger: Logger;
  /** Records every request; undefined when METRICS=off. */
  readonly metrics?: HttpMetrics;
  /** Whether GET /metrics is served here (false when it has its own port). */
  readonly metricsOnApiPort: boolean;
  /** Exact origins allowed to call from a browser; empty means CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Proxy addresses or CIDR blocks whose X-Forwarded-For is believed (TRUSTED_PROXIES); none by default. */
  readonly trustedProxies?: readonly string[];
}

/** The Koa app serving the interface. It never listens: main.ts (or a test) does. */
export function createHttpApp(deps: HttpAppDeps): Koa {
  // Koa, with the frame's own replies spared on-finished (frame-koa.ts).
  const app = new FrameKoa();
  // Errors are rendered and reported by the request frame; Koa's own stderr logging would double them.
  app.silent = true;
  const router = allRoutes(deps);

  // One frame does what every request needs (id, headers, CORS, key, quota, errors, log, metrics); see request-frame.ts.
  app.use(
    requestFrame({
      catalog: deps.catalog,
      rateLimits: deps.rateLimits,
      observer: new RequestObserver(deps.logger, deps.metrics),
      router,
      corsOrigins: deps.corsOrigins,
      trustedProxies: trustedProxyList(deps.trustedProxies ?? []),
      onUnexpectedError: deps.onUnexpectedError,
    }),
  );
  // The frame runs a matched route itself (route-dispatch.ts); what it cannot (404, 405, OPTIONS) comes here.
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Every route the service answers; the OpenAPI document must describe exactly these. */
export function allRoutes(deps: HttpAppDeps): Router {
  const metrics = deps.metricsOnApiPort ? deps.metrics : undefined;
  const router = new Router({ sensitive: true, strict: true });
  router.use(healthRoutes(deps.readiness).routes());
  router.use(openApiRoutes(deps.servers, { metrics: metrics !== undefined }).routes());
  router.use(docsRoutes().routes());
  router.use(petRoutes(deps.catalog, deps.clock, deps.idempotency).routes());
  if (metrics !== undefined) router.use(metricsRoutes(metrics).routes());
  return router;
}
