import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { HttpMetrics } from './http-metrics.js';

/** The one log line per response; it names the key by its id only, headers are never logged. */
export interface RequestLine {
  readonly requestId: string;
  /** Null when the server answered before it could read the request line (431, 408 on a slow head, 400). */
  readonly method: string | null;
  /** The route template; null for paths no route matches. */
  readonly route: string | null;
  readonly status: number;
  /** The error body's code (validation_failed, pet_not_found...); null when the answer is no error body. */
  readonly code: string | null;
  /** Null when no request was read, so there was nothing to time. */
  readonly durationMs: number | null;
  readonly apiKeyId: string | null;
  readonly clientAddress: string | null;
}

/**
 * Logs and counts every response the service sends, whichever layer sent it (the app, or the server's own
 * answers to clients it cuts off), so each is seen exactly once with the status on the wire.
 */
export class RequestObserver {
  constructor(
    private readonly logger: Logger,
    private readonly metrics: HttpMetrics | undefined,
    /**
     * Route templates whose successes are logged at debug, not info: probes and scrapes, which machines send every
     * few seconds. Their failures (a 503 from /readyz) stay at info.
     */
    private readonly quietRoutes: ReadonlySet<string> = new Set(),
  ) {}

  record(line: RequestLine): void {
    const seconds = line.durationMs === null ? undefined : line.durationMs / 1000;
    this.metrics?.observeRequest(line.method ?? 'unknown', line.route ?? 'unmatched', line.status, seconds);
    if (line.status < 400 && line.route !== null && this.quietRoutes.has(line.route)) this.logger.debug(line, 'request');
    else this.logger.info(line, 'request');
  }
}

/**
 * The route template of a request: the one the router dispatched to, else (a request refused before routing,
 * or a 405) the template of a route on its path. Null for paths no route matches.
 */
export function routeTemplate(ctx: Context, routers: readonly Router[]): string | null {
  const dispatched = dispatchedRoute(ctx);
  if (dispatched !== null) return dispatched;
  for (const router of routers) {
    const layer = router.match(ctx.path, ctx.method).path.find((candidate) => candidate.methods.length > 0);
    if (typeof layer?.path === 'string') return layer.path;
  }
  return null;
}

/** The template of the route the router dispatched this request to (@koa/router's ctx.routerPath), if any. */
export function dispatchedRoute(ctx: Context): string | null {
  return (ctx as Context & { routerPath?: string }).routerPath ?? null;
}

/** Reports an error that became a 500 (Koa's 'error' event): its request id and the error with its stack. */
export function logUnexpectedError(logger: Logger) {
  return (error: unknown, ctx?: Context): void =>
    logger.error({ err: error, requestId: ctx?.state.requestId, method: ctx?.method, path: ctx?.path }, 'unexpected error');
}
