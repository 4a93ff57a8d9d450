import Koa, { type Context, type Next } from 'koa';
import type { PetCatalog } from '../../core/pet-catalog.js';
import { authenticate } from './authenticate.js';
import { markDeprecated } from './deprecation.js';
import { respondWithErrors } from './error-responses.js';
import { healthRoutes, type Readiness } from './health-routes.js';
import { petRoutes } from './pet-routes.js';
import { requestContext } from './request-context.js';

export interface HttpAppDeps {
  readonly catalog: PetCatalog;
  readonly readiness: Readiness;
  /** Receives every error that became a 500; the client only sees a generic message. */
  readonly onUnexpectedError: (error: unknown, ctx: Context) => void;
}

/** The Koa app serving the interface. It never listens: main.ts (or a test) does. */
export function createHttpApp(deps: HttpAppDeps): Koa {
  const app = new Koa();
  // Errors are rendered and reported by respondWithErrors; Koa's own stderr logging would double them.
  app.silent = true;
  const pets = petRoutes(deps.catalog);
  const health = healthRoutes(deps.readiness);

  app.use(requestContext);
  app.use(respondWithErrors(deps.onUnexpectedError));
  app.use(markDeprecated);
  app.use(onlyUnder('/v1', authenticate(deps.catalog)));
  app.use(health.routes());
  app.use(pets.routes());
  app.use(pets.allowedMethods());
  return app;
}

function onlyUnder(prefix: string, middleware: Koa.Middleware) {
  return (ctx: Context, next: Next) =>
    ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) ? middleware(ctx, next) : next();
}
