import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { Clock } from '../../ports/clock.js';
import { authenticate } from './authenticate.js';
import { markDeprecated } from './deprecation.js';
import { respondWithErrors } from './error-responses.js';
import type { IdempotencySettings } from './idempotency.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import type { OpenApiServers } from './openapi-document.js';
import { openApiRoutes } from './openapi-routes.js';
import { petRoutes } from './pet-routes.js';
import type { RateLimits } from './rate-limits.js';
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
  app.use(respondWithErrors(deps.onUnexpectedError));
  app.use(markDeprecated);
  app.use(whenKeyRequired(authenticate(deps.catalog, deps.rateLimits)));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Every route the service answers; the OpenAPI document must describe exactly these. */
export function allRoutes(deps: HttpAppDeps): Router {
  const router = new Router();
  router.use(healthRoutes(deps.readiness).routes());
  router.use(openApiRoutes(deps.servers).routes());
  router.use(petRoutes(deps.catalog, deps.clock, deps.idempotency).routes());
  return router;
}

// Authentication comes before routing under /v1, so a caller without a key learns nothing else.
function whenKeyRequired(middleware: Koa.Middleware) {
  return (ctx: Context, next: Next) =>
    (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) && !PUBLIC_PATHS.has(ctx.path) ? middleware(ctx, next) : next();
}
