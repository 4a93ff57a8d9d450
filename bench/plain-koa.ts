import Router from '@koa/router';
import { fail, listenKoa } from './koa-yardstick-app.js';
import { checkListQuery, checkNewPet, checkPetId, PetStore } from './yardstick-store.js';

/*
 * The plain Koa yardstick: Koa 3 + @koa/router + @koa/bodyparser, the service's three routes under /v1,
 * Koa's own JSON.stringify of the body, the 400 rules checked by hand. No auth (the Authorization header
 * is ignored), no logs, metrics or limits: what a hand-written Koa app costs before any feature.
 */
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

listenKoa(router, 'Koa yardstick');
