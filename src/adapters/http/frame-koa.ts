import Koa, { type Context } from 'koa';

type Middleware = (ctx: Context) => Promise<unknown>;

/** Koa's own request handling: koa/lib/application.js, marked private, the same through Koa 2 and 3. */
interface KoaRequestHandling {
  handleRequest(ctx: Context, fnMiddleware: Middleware): Promise<unknown>;
}

const koaHandleRequest = (Koa.prototype as unknown as KoaRequestHandling).handleRequest;

/**
 * Koa, less one piece of bookkeeping per request for the replies the request frame writes itself.
 *
 * Before the middleware runs, Koa's handleRequest hands every response to on-finished, so that an error on a
 * body Koa sends later reaches ctx.onerror: two listeners on the response, two on its socket, an
 * AsyncResource, all taken off again at the finish. The frame sends its JSON replies itself (the head at once,
 * the body with the others of the turn: reply-batch.ts) and marks them `ctx.respond = false`; Koa sends no body
 * for those, so its listeners have nothing to report to ctx.onerror, and they cost
 * 1 to 3.4 µs a request at peak and 2.3 to 4.7 µs at half peak (get, list, create side by side: BENCHMARKS.md,
 * ninth session).
 *
 * So the middleware runs first, and only a response the frame left to Koa (the docs, /metrics, the router's
 * 404 and 405, a preflight) goes through Koa's own handleRequest, unchanged: on-finished, then respond().
 * It is handed a chain that has already run; Koa starts from 404, so the chain puts back the status the
 * middleware set. `test/http/frame-koa.test.ts` holds both paths.
 */
export class FrameKoa extends Koa {
  handleRequest(ctx: Context, fnMiddleware: Middleware): Promise<unknown> {
    // As Koa does: a response no middleware set is a 404.
    ctx.res.statusCode = 404;
    return fnMiddleware(ctx).then(
      () => (ctx.respond === false ? undefined : this.respondAsKoa(ctx)),
      (error: Error) => ctx.onerror(error),
    );
  }

  private respondAsKoa(ctx: Context): Promise<unknown> {
    const status = ctx.res.statusCode;
    const ranAlready: Middleware = () => {
      ctx.res.statusCode = status;
      return Promise.resolve();
    };
    return koaHandleRequest.call(this, ctx, ranAlready);
  }
}
