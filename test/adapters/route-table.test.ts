import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import { Router } from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowMethodsOf } from '../../src/adapters/http/cors.js';
import { ALL_PET_OPERATIONS, type PetOperation } from '../../src/adapters/http/pet-operations.js';
import { addRoute } from '../../src/adapters/http/pet-routes.js';
import { sendSuccess } from '../../src/adapters/http/send-success.js';
import { petPaths } from '../../src/adapters/http/openapi/openapi-pet-paths.js';
import { TRACED_USE_CASES } from '../../src/adapters/http/request-tracing.js';
import { PetIdSchema } from '../../src/adapters/http/wire-schemas.js';

/*
 * The route table as the one source of operations, with an entry the interface does not have: a success without
 * a body (204) must be expressible, documented without content and sent without one.
 */

const deletePet = {
  operationId: 'deletePet',
  method: 'delete',
  path: '/pets/{petId}',
  summary: 'Remove an animal',
  description: 'Removes the animal; its id is not given again.',
  pathParams: { petId: PetIdSchema },
  success: { status: 204, description: 'Removed.', headers: { RateLimit: 'RateLimit' } },
  errors: { 404: 'NotFound' },
} as const satisfies PetOperation;

describe('a route table entry whose success has no body', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const router = new Router();
    addRoute(router, deletePet, (ctx) => sendSuccess(ctx, deletePet.success, { RateLimit: `limit=1, id=${ctx.params.petId}` }));
    server = new Koa().use(router.routes()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('is sent as 204 with its headers and no content, no Content-Type and no Content-Length', async () => {
    const response = await fetch(`${url}/v1/pets/7`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.headers.get('ratelimit')).toBe('limit=1, id=7');
    expect(response.headers.has('content-type')).toBe(false);
    expect(response.headers.has('content-length')).toBe(false);
    expect(await response.text()).toBe('');
  });

  it('is registered under its method only', async () => {
    const response = await fetch(`${url}/v1/pets/7`);
    expect(response.status).toBe(404);
  });

  it('is documented as a response without content, with its headers', () => {
    const operation = (petPaths([deletePet]) as Record<string, Record<string, any>>)['/pets/{petId}']!.delete;
    expect(operation.operationId).toBe('deletePet');
    expect(Object.keys(operation.responses)).toEqual(['204', '404']);
    const noContent = operation.responses['204'];
    expect(noContent).not.toHaveProperty('content');
    expect(noContent.description).toBe('Removed.');
    expect(noContent.headers.RateLimit).toEqual({ $ref: '#/components/headers/RateLimit' });
    expect(operation.responses['404']).toEqual({ $ref: '#/components/responses/NotFound' });
  });
});

describe('lists derived from the route table', () => {
  it('allows in CORS the methods of the table, HEAD with GET', () => {
    expect(allowMethodsOf(ALL_PET_OPERATIONS)).toBe('GET, HEAD, POST');
    expect(allowMethodsOf([...ALL_PET_OPERATIONS, deletePet])).toBe('DELETE, GET, HEAD, POST');
    expect(allowMethodsOf([deletePet])).toBe('DELETE');
  });

  it("traces PetCatalog's async methods as use cases, not the synchronous authenticate", () => {
    expect(TRACED_USE_CASES).toEqual(['listPets', 'addPet', 'getPet']);
  });
});
