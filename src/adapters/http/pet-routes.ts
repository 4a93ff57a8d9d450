import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type { Context } from 'koa';
import type { PetCatalog } from '../../core/pet-catalog.js';
import { newPetOf, type PetId, type PetStatus } from '../../core/pet.js';
import type { Clock } from '../../ports/clock.js';
import { ApiError } from './api-error.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { idempotentCreateOf, type IdempotencySettings } from './idempotency.js';
import { GET_PET_SUCCESSOR, GET_PET_SUNSET_AT } from './deprecation.js';
import { newPetJson, petJson, petsJson } from './json.js';
import { PET_OPERATIONS, routerPath, type PetOperation } from './pet-operations.js';
import { queryOf } from './query.js';
import { memoized } from './memoized.js';
import { readJsonBody } from './read-json-body.js';
import type { RequestState } from './request-context.js';
import { sendSuccess } from './send-success.js';
import { validate } from './validate.js';
import { ListPetsQuerySchema, NewPetSchema, PetIdSchema } from './wire-schemas.js';

/**
 * The three operations of the interface, under /v1, as the route table (pet-operations.ts) lists them.
 * `traced`, when tracing is on, wraps each operation's handler in its span (request-tracing.ts).
 */
export function addPetRoutes(router: Router, catalog: PetCatalog, clock: Clock, idempotency: IdempotencySettings, traced?: HandlerWrapper): void {
  const add = (operation: PetOperation, handler: RouterMiddleware) => addRoute(router, operation, handler, traced);
  const { listPets, createPet, getPet } = PET_OPERATIONS;
  // Never ctx.query: it is quadratic in the number of parameters (see query.ts).
  const petIdOf = memoized((text) => validate(PetIdSchema, text, 'petId'));
  const listQueryOf = memoized((querystring) => Object.freeze(validate(ListPetsQuerySchema, queryOf(querystring), 'query')));
  add(listPets, async (ctx) => {
    const { limit, status, cursor } = listQueryOf(ctx.querystring);
    const afterId = cursor === undefined ? undefined : decodeCursor(cursor, status);
    const page = await catalog.listPets({ limit, status, afterId }, arrivedAt(ctx));
    const link = page.nextAfterId === undefined ? undefined : { Link: nextLink(limit, status, page.nextAfterId) };
    sendSuccess(ctx, listPets.success, petsJson(page.pets), link);
  });

  add(createPet, async (ctx) => {
    const json = await readJsonBody(ctx);
    const newPet = newPetOf(validate(NewPetSchema, json, 'body'));
    const { pet, replayed } = await catalog.addPet(newPet, idempotentCreateOf(ctx, idempotency, json), arrivedAt(ctx));
    // A replay answers what the first request did, marked as a replay.
    const headers: Record<string, string> = { Location: `/v1/pets/${pet.id}` };
    if (replayed) {
      headers['Idempotent-Replayed'] = 'true';
      idempotency.logReplay?.(ctx, pet);
    }
    sendSuccess(ctx, createPet.success, newPetJson(pet), headers);
  });

  add(getPet, async (ctx) => {
    // Removal is scheduled in the published document; at the instant it takes effect without a deploy.
    if (clock.now() >= GET_PET_SUNSET_AT) {
      throw new ApiError(410, 'operation_removed', `GET /v1/pets/{petId} was removed; use GET ${GET_PET_SUCCESSOR} instead.`);
    }
    const id = petIdOf(ctx.params.petId!);
    sendSuccess(ctx, getPet.success, petJson(await catalog.getPet(id, arrivedAt(ctx))));
  });
}

/**
 * Registers a route table entry: its method, its path under /v1, its operationId as name (the operation span's),
 * and its handler, wrapped in the operation span when tracing is on.
 */
export function addRoute(router: Router, operation: PetOperation, handler: RouterMiddleware, traced?: HandlerWrapper): void {
  router[operation.method](operation.operationId, routerPath(operation), traced === undefined ? handler : traced(handler));
}

/** What tracing wraps a route's handler in (request-tracing.ts's `withOperationSpan`). */
type HandlerWrapper = (handler: RouterMiddleware) => RouterMiddleware;

// Storage bounds its wait from the request's arrival (request-context.ts), not from the call.
const arrivedAt = (ctx: Context) => (ctx.state as RequestState).started;

// A relative reference (RFC 8288 §3.1): it resolves against the request URI, so it is right behind any proxy.
function nextLink(limit: number, status: PetStatus | undefined, afterId: PetId): string {
  const statusParam = status === undefined ? '' : `&status=${status}`;
  return `</v1/pets?limit=${limit}${statusParam}&cursor=${encodeCursor(afterId, status)}>; rel="next"`;
}
