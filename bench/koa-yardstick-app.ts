import { bodyParser } from '@koa/bodyparser';
import type Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { errorBody } from './yardstick-store.js';

/* What the two Koa yardsticks (plain-koa.ts in memory, koa-mongodb.ts on MongoDB) share around their routes. */

/** Answers the service's error body with this status. */
export function fail(ctx: Context, status: number, code: string, message?: string): void {
  ctx.status = status;
  ctx.body = errorBody(status, code, message);
}

/**
 * A Koa app of the body parser (JSON only; a body that is not JSON leaves ctx.request.body undefined, which the
 * routes refuse with a 400) and the router, on PORT and HOST, printing "<name> listening on http://host:port/v1".
 */
export function listenKoa(router: Router, name: string): void {
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ['json'], onError: () => undefined }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object') {
      process.stdout.write(`${name} listening on http://${address.address}:${address.port}/v1\n`);
    }
  });
}
