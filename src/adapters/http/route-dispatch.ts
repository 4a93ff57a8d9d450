import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { remembered } from './remembered.js';

type Route = Router['stack'][number];

/** The one route a path matches for a method, with its path parameters decoded. Frozen: it is remembered. */
interface SoleMatch {
  readonly route: Route;
  readonly params: Readonly<Record<string, string>>;
}

/** What a route handler gets as `next`: the service's routes end the chain, none of them calls it. */
const END_OF_CHAIN: Next = () => Promise.resolve();

/**
 * Runs the one route @koa/router matches for a request, through the router's own matcher and parameter
 * decoding, without the chain its routes() middleware builds: on every request that is a closure, an
 * array, a `toReversed()` and a koa-compose (2.5 µs of a 28 µs getPet, measured side by side).
 * The service registers each route with one handler and no router middleware, so that chain is always
 * "set the params, call the handler". Anything else (no route for the method: 404, 405, OPTIONS; or a
 * path two layers match) goes on to router.routes() and allowedMethods() as before.
 * A path's match is remembered per method (remembered.ts): clients ask for the same paths again and again,
 * and matching tries every layer's regular expression and decodes the parameters (0.45 µs of a getPet).
 * `test/http/route-dispatch.test.ts` holds this to what router.routes() would have done.
 */
export function routeDispatcher(router: Router) {
  const matchers = new Map<string, (path: string) => SoleMatch | undefined>();
  const soleMatchOf = (method: string, path: string): SoleMatch | undefined => {
    let matcher = matchers.get(method);
    // Node's parser accepts only the methods it knows, so there are a few dozen of these at most.
    if (matcher === undefined) matchers.set(method, (matcher = remembered((text) => soleMatch(router, method, text))));
    return matcher(path);
  };
  // A handler may be synchronous (the health routes): the frame awaits whatever it returns.
  return function dispatchRoute(ctx: Context, path: string, next: Next): Promise<void> | void {
    const match = soleMatchOf(ctx.req.method ?? '', path);
    if (match === undefined) return next();
    const { route, params } = match;
    ctx.params = params;
    // Read by the request log and the metrics (observe-requests.ts), as routes() would have set it.
    (ctx as { _matchedRoute?: string | RegExp })._matchedRoute = route.path;
    return route.stack[0]!(ctx as Parameters<Route['stack'][number]>[0], END_OF_CHAIN) as Promise<void> | void;
  };
}

// undefined is not remembered: a path no route takes is matched again each time (and cannot fill the memory).
function soleMatch(router: Router, method: string, path: string): SoleMatch | undefined {
  const [route, other] = router.match(path, method).pathAndMethod;
  if (route === undefined || other !== undefined || route.methods.length === 0 || route.stack.length !== 1) return undefined;
  return Object.freeze({ route, params: Object.freeze(route.params(path, route.captures(path))) });
}
