import type Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import type { Logger } from 'pino';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { Clock } from '../../ports/clock.js';
import type { RateLimits } from '../../ports/rate-limiter.js';
import { requireApiKey } from './authenticate.js';
import { trustedProxyList } from './client-address.js';
import { cors } from './cors.js';
import { exactRouter } from './exact-router.js';
import { addDocsRoutes } from './openapi/docs-routes.js';
import { respondWithErrors } from './error-responses.js';
import { addHealthRoutes, PROBE_ROUTES, type Readiness } from './health-routes.js';
import type { HttpMetrics } from './http-metrics.js';
import { replayLog, type IdempotencySettings } from './idempotency.js';
import { addMetricsRoutes, METRICS_ROUTE } from './metrics-routes.js';
import { RequestObserver } from './observe-requests.js';
import type { OpenApiServers } from './openapi/openapi-document.js';
import { addOpenApiRoutes } from './openapi/openapi-routes.js';
import { ALL_PET_OPERATIONS } from './pet-operations.js';
import { addPetRoutes } from './pet-routes.js';
import { refusalLog } from './rate-limits.js';
import { requestContext } from './request-context.js';
import type * as RequestTracing from './request-tracing.js';

export interface HttpAppDeps {
  readonly catalog: PetCatalog;
  readonly readiness: Readiness;
  readonly clock: Clock;
  readonly idempotency: IdempotencySettings;
  readonly rateLimits: RateLimits;
  /** Base addresses published in the OpenAPI document. */
  readonly servers: OpenApiServers;
  /** Koa's 'error' event: every error that became an unanticipated 5xx; the client only sees a generic message. */
  readonly onUnexpectedError: (error: unknown, ctx?: Context) => void;
  readonly logger: Logger;
  /** Records every request; undefined when METRICS=off. */
  readonly metrics?: HttpMetrics;
  /** Whether GET /metrics is served here (false when it has its own port). */
  readonly metricsOnApiPort: boolean;
  /** Exact origins allowed to call from a browser; empty means CORS is off. */
  readonly corsOrigins: readonly string[];
  /** Proxy addresses or CIDR blocks whose X-Forwarded-For is believed (TRUSTED_PROXIES); none by default. */
  readonly trustedProxies?: readonly string[];
  /**
   * Standard Koa middleware for every route (compression, ETags, a team's own): mounted inside the error
   * mapping, so what they throw becomes an Error body, and before CORS, the key check and the router.
   */
  readonly middleware?: readonly Middleware[];
  /** The service's spans, when tracing is on (request-tracing.ts, loaded only then). */
  readonly tracing?: Pick<typeof RequestTracing, 'traceRequests' | 'withOperationSpan' | 'recordUnexpectedError'>;
}

/** The Koa app serving the interface. It never listens: main.ts (or a test) does. */
export function createHttpApp(deps: HttpAppDeps): Koa {
  const app = new Koa();
  app.on('error', deps.onUnexpectedError);
  // Asked once: below debug, the request path carries no debug logging at all, not even a level check.
  const debug = deps.logger.isLevelEnabled('debug');
  const idempotency = debug ? { ...deps.idempotency, logReplay: replayLog(deps.logger) } : deps.idempotency;
  const routers = allRoutes({ ...deps, idempotency });
  // Probes and scrapes: logged at debug when they succeed, and never traced.
  const machineRoutes = new Set([PROBE_ROUTES.live, PROBE_ROUTES.ready, METRICS_ROUTE]);
  const observer = new RequestObserver(deps.logger, deps.metrics, machineRoutes);
  const first = requestContext({ observer, routers, trustedProxies: trustedProxyList(deps.trustedProxies ?? []) });
  const tracing = deps.tracing;
  if (tracing !== undefined) app.on('error', tracing.recordUnexpectedError);
  // Traced, the first middleware runs within the request's span: the request line and all below are written in it.
  app.use(tracing === undefined ? first : tracing.traceRequests(machineRoutes, first));
  app.use(respondWithErrors());
  for (const middleware of deps.middleware ?? []) app.use(middleware);
  if (deps.corsOrigins.length > 0) app.use(cors(deps.corsOrigins, ALL_PET_OPERATIONS));
  const logRefusal = debug ? refusalLog(deps.logger) : undefined;
  app.use(requireApiKey({ catalog: deps.catalog, rateLimits: deps.rateLimits, metrics: deps.metrics, logRefusal }));
  for (const router of routers) app.use(router.routes());
  // A 405 names the methods of every router's routes on the path: each router adds the routes it matched to ctx.matched.
  app.use(routers[0].allowedMethods());
  return app;
}

/**
 * Every route the service answers, in the routers that dispatch them, in order: the interface's operations, then the
 * service's own (probes, documents, metrics). @koa/router tests a request against every route of a router, and calls
 * its debug logger for each, so the operations nearly every request asks for sit in a router of their own
 * (BENCHMARKS.md, issue 42). The OpenAPI documents must describe exactly these.
 */
export function allRoutes(deps: Pick<HttpAppDeps, 'readiness' | 'servers' | 'catalog' | 'clock' | 'idempotency' | 'metrics' | 'metricsOnApiPort' | 'tracing'>): readonly [operations: Router, service: Router] {
  const metrics = deps.metricsOnApiPort ? deps.metrics : undefined;
  const operations = exactRouter();
  addPetRoutes(operations, deps.catalog, deps.clock, deps.idempotency, deps.tracing?.withOperationSpan);
  const service = exactRouter();
  addHealthRoutes(service, deps.readiness);
  addOpenApiRoutes(service, deps.servers, { metrics: metrics !== undefined });
  addDocsRoutes(service);
  if (metrics !== undefined) addMetricsRoutes(service, metrics);
  return [operations, service];
}
