import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import type { HttpMetrics } from './http-metrics.js';

/**
 * One log line and one metrics observation per request. It sits outside the error renderer, so the
 * status it sees is the one sent. The line names the key by its id only; headers are never logged.
 */
export function observeRequests(logger: Logger, metrics: HttpMetrics | undefined, router: Router) {
  return async function observe(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    await next();
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const route = routeTemplate(ctx, router);
    metrics?.observeRequest(ctx.method, route ?? 'unmatched', ctx.status, durationMs / 1000);
    logger.info(
      {
        requestId: ctx.state.requestId,
        method: ctx.method,
        route,
        status: ctx.status,
        durationMs,
        apiKeyId: ctx.state.apiKeyId ?? null,
      },
      'request',
    );
  };
}

// The router records the template it dispatched to; requests stopped before routing (401, 405) are
// matched here so that they are labelled by route too. Unknown paths get null.
function routeTemplate(ctx: Context, router: Router): string | null {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  const layer = router.match(ctx.path, ctx.method).path.find((candidate) => candidate.methods.length > 0);
  return typeof layer?.path === 'string' ? layer.path : null;
}

/** Reports a request that became a 500: its id and the error with its stack, at error level. */
export function logUnexpectedError(logger: Logger) {
  return (error: unknown, ctx: Context): void =>
    logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unexpected error');
}
