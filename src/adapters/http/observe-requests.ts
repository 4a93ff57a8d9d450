import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { HttpMetrics } from './http-metrics.js';
import { requestLineWriter, type RequestLine } from './request-line-writer.js';

/**
 * Logs and counts every response the service sends, whichever layer sent it (the request frame, or the
 * server's own answers to clients it cuts off), so each is seen exactly once with the status on the wire.
 */
export class RequestObserver {
  private readonly writeLine: (line: RequestLine) => void;

  constructor(
    logger: Logger,
    private readonly metrics: HttpMetrics | undefined,
  ) {
    this.writeLine = requestLineWriter(logger);
  }

  record(line: RequestLine): void {
    const seconds = line.durationMs === null ? undefined : line.durationMs / 1000;
    this.metrics?.observeRequest(line.method ?? 'unknown', line.route ?? 'unmatched', line.status, seconds);
    this.writeLine(line);
  }
}

// The router records the template it dispatched to; requests stopped before routing (401, 405) are
// matched here so that they are labelled by route too. Unknown paths get null.
export function routeTemplate(ctx: Context, router: Router | undefined): string | null {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (router === undefined) return null;
  const layer = router.match(ctx.path, ctx.method).path.find((candidate) => candidate.methods.length > 0);
  return typeof layer?.path === 'string' ? layer.path : null;
}

/** Reports a request that became a 500: its id and the error with its stack, at error level. */
export function logUnexpectedError(logger: Logger) {
  return (error: unknown, ctx: Context): void =>
    logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unexpected error');
}
