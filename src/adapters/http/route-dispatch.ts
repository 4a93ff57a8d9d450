import type Router from '@koa/router';
import type { Context, Next } from 'koa';

type Route = Router['stack'][number];

/** What a route handler gets as `next`: the service's routes end the chain, none of them calls it. */
const END_OF_CHAIN: Next = () => Promise.resolve();

/**
 * Runs the one route @koa/router matches for a request, through the router's own matcher and parameter
 * decoding, without the chain its routes() middleware builds: on every request that is a closure, an
 * array, a `toReversed()` and a koa-compose (2.5 µs of a 28 µs getPet, measured side by side).
 * The service registers each route with one handler and no router middleware, so that chain is always
 * "set the params, call the handler". Anything else (no route for the method: 404, 405, OPTIONS; or a
 * path two layers match) goes on to router.routes() and allowedMethods() as before.
 * `test/http/route-dispatch.test.ts` holds this to what router.routes() would have done.
 */
export function routeDispatcher(router: Router) {
  // A handler may be synchronous (the health routes): the frame awaits whatever it returns.
  return function dispatchRoute(ctx: Context, path: string, next: Next): Promise<void> | void {
    const route = soleRoute(router.match(path, ctx.req.method ?? ''));
    if (route === undefined) return next();
    ctx.params = route.params(path, route.captures(path));
    // Read by the request log and the metrics (observe-requests.ts), as routes() would have set it.
    (ctx as { _matchedRoute?: string | RegExp })._matchedRoute = route.path;
    return route.stack[0]!(ctx as Parameters<Route['stack'][number]>[0], END_OF_CHAIN) as Promise<void> | void;
  };
}

function soleRoute(match: ReturnType<Router['match']>): Route | undefined {
  const [route, other] = match.pathAndMethod;
  if (route === undefined || other !== undefined || route.methods.length === 0 || route.stack.length !== 1) return undefined;
  return route;
}
