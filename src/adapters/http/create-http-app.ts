import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import type { Logger } from 'pino';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import { authenticate } from './authenticate.js';
import { cors } from './cors.js';
import { markDeprecated } from './deprecation.js';
import { docsRoutes } from './docs-routes.js';
import { respondWithErrors } from './error-responses.js';
import type { IdempotencySettings } from './idempotency.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import type { HttpMetrics } from './http-metrics.js';
import { metricsRoutes } from './metrics-routes.js';
import { observeRequests } from './observe-requests.js';
import type { OpenApiServers } from './openapi-document.js';
import { openApiRoutes } from './openapi-routes.js';
import { petRoutes } from './pet-routes.js';
import { requestContext } from './request-context.js';

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
}

/** Paths under /v1 that need no key: the published contract. */
const PUBLIC_PATHS = new Set(['/v1/openapi.json']);

/** The Koa app serving the interface. It never listens: main.ts (or a test) does. */
export function createHttpApp(deps: HttpAppDeps): Koa {
  const app = new Koa();
  // Errors are rendered and reported by respondWithErrors; Koa's own stderr logging would double them.
  app.silent = true;
  const router = allRoutes(deps);

  app.use(requestContext);
  app.use(observeRequests(deps.logger, deps.metrics, router));
  app.use(respondWithErrors(deps.onUnexpectedError));
  if (deps.corsOrigins.length > 0) app.use(cors(deps.corsOrigins));
  app.use(markDeprecated);
  app.use(whenKeyRequired(authenticate(deps.catalog, deps.rateLimits)));
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

// Authentication comes before routing under /v1, so a caller without a key learns nothing else.
function whenKeyRequired(middleware: Koa.Middleware) {
  return (ctx: Context, next: Next) =>
    (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) && !PUBLIC_PATHS.has(ctx.path) ? middleware(ctx, next) : next();
}
