import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import { checkListQuery, checkNewPet, checkPetId, errorBody, PetStore } from './yardstick-store.js';

/* What the Koa yardsticks (plain-koa.ts and koa-features.ts in memory, koa-mongodb.ts on MongoDB) share. */

/** Answers the service's error body with this status. */
export function fail(ctx: Context, status: number, code: string, message?: string): void {
  ctx.status = status;
  ctx.body = errorBody(status, code, message);
}

/**
 * The service's three routes under /v1 as a hand-written Koa app has them: Koa's own JSON.stringify of the body,
 * the 400 rules checked by hand, pets in memory (the plain Koa yardstick's, and the Koa + features one's).
 */
export function plainKoaRouter(): Router {
  const store = new PetStore();
  const router = new Router({ prefix: '/v1' });
  router.get('/pets', (ctx) => {
    const query = checkListQuery(ctx.query);
    if (typeof query === 'string') return fail(ctx, 400, 'validation_failed', query);
    const { pets, link } = store.list(query);
    if (link !== undefined) ctx.set('Link', link);
    ctx.body = pets;
  });
  router.post('/pets', (ctx) => {
    // A body that is not JSON leaves ctx.request.body undefined (listenKoa's body parser): a 400 here too.
    const newPet = checkNewPet(ctx.request.body);
    if (typeof newPet === 'string') return fail(ctx, 400, 'validation_failed', newPet);
    const pet = store.add(newPet);
    ctx.status = 201;
    ctx.set('Location', `/v1/pets/${pet.id}`);
    ctx.body = pet;
  });
  router.get('/pets/:petId', (ctx) => {
    const id = checkPetId(ctx.params.petId!);
    if (id === undefined) return fail(ctx, 400, 'validation_failed', 'petId must be an integer.');
    const pet = store.get(id);
    if (pet === undefined) return fail(ctx, 404, 'pet_not_found');
    ctx.body = pet;
  });
  return router;
}

/**
 * A Koa app of `first` (middleware in front of the rest), the body parser (JSON only; a body that is not JSON leaves
 * ctx.request.body undefined, which the routes refuse with a 400) and the router, on PORT and HOST, printing
 * "<name> listening on http://host:port/v1".
 */
export function listenKoa(router: Router, name: string, first: readonly Middleware[] = []): void {
  const app = new Koa();
  for (const middleware of first) app.use(middleware);
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
