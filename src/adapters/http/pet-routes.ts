import Router from '@koa/router';
import type { PetCatalog } from '../../core/pet-catalog.js';
import type { NewPet } from '../../core/pet.js';
import { petJson, petsJson } from './json.js';
import { readJsonBody } from './read-json-body.js';
import { sendJson } from './send-json.js';
import { validate } from './validate.js';
import { ListPetsQuerySchema, NewPetSchema, PetIdSchema, type NewPetBody } from './wire-schemas.js';

/** The three operations of the interface, under /v1. */
export function petRoutes(catalog: PetCatalog): Router {
  const router = new Router({ prefix: '/v1' });

  router.get('listPets', '/pets', async (ctx) => {
    const query = validate(ListPetsQuerySchema, ctx.query, 'query');
    const page = await catalog.listPets({ limit: query.limit, status: query.status });
    sendJson(ctx, 200, petsJson(page.pets));
  });

  router.post('createPet', '/pets', async (ctx) => {
    const body = validate(NewPetSchema, await readJsonBody(ctx), 'body');
    const pet = await catalog.addPet(toNewPet(body));
    ctx.set('Location', `/v1/pets/${pet.id}`);
    sendJson(ctx, 201, petJson(pet));
  });

  router.get('getPet', '/pets/:petId', async (ctx) => {
    const id = validate(PetIdSchema, ctx.params.petId, 'petId');
    sendJson(ctx, 200, petJson(await catalog.getPet(id)));
  });

  return router;
}

function toNewPet(body: NewPetBody): NewPet {
  const { name, categoryId, status } = body;
  return status === undefined ? { name, categoryId } : { name, categoryId, status };
}
