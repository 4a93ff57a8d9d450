import type Router from '@koa/router';
import { sendJson } from './send-json.js';

export interface Readiness {
  /** Whether the service can serve requests now (storage reachable, not shutting down). */
  isReady(): Promise<boolean>;
}

/** The liveness and readiness routes, polled by orchestrators and load balancers. */
export const PROBE_ROUTES = { live: '/healthz', ready: '/readyz' } as const;

/** Liveness and readiness for orchestrators; no key needed, nothing about the internals revealed. */
export function addHealthRoutes(router: Router, readiness: Readiness): void {
  router.get(PROBE_ROUTES.live, (ctx) => sendJson(ctx, 200, '{"status":"ok"}'));
  router.get(PROBE_ROUTES.ready, async (ctx) => {
    const ready = await readiness.isReady();
    sendJson(ctx, ready ? 200 : 503, ready ? '{"status":"ready"}' : '{"status":"unavailable"}');
  });
}
