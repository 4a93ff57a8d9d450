import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { checkListQuery, checkNewPet, checkPetId, errorBody, PetStore } from './yardstick-store.js';

/*
 * The plain Koa yardstick: Koa 3 + @koa/router + @koa/bodyparser, the service's three routes under /v1,
 * Koa's own JSON.stringify of the body, the 400 rules checked by hand. No auth (the Authorization header
 * is ignored), no logs, metrics or limits: what a hand-written Koa app costs before any feature.
 */
const store = new PetStore();
const router = new Router({ prefix: '/v1' });

function fail(ctx: Context, status: number, code: string, message?: string): void {
  ctx.status = status;
  ctx.body = errorBody(status, code, message);
}

router.get('/pets', (ctx) => {
  const query = checkListQuery(ctx.query);
  if (typeof query === 'string') return fail(ctx, 400, 'validation_failed', query);
  const { pets, link } = store.list(query);
  if (link !== undefined) ctx.set('Link', link);
  ctx.body = pets;
});

router.post('/pets', (ctx) => {
  // A body that is not JSON leaves ctx.request.body undefined (see onError below): a 400 here too.
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

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], onError: () => undefined }));
app.use(router.routes());
app.use(router.allowedMethods());

const server = app.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') {
    process.stdout.write(`Koa yardstick listening on http://${address.address}:${address.port}/v1\n`);
  }
});
