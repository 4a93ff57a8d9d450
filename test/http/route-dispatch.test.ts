import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeDispatcher } from '../../src/adapters/http/route-dispatch.js';
import { listenKoa, type ListeningKoa } from '../support/listen-koa.js';

/** Each handler answers with what a route handler can see of the routing: its name, its params, the template. */
function echo(name: string) {
  return (ctx: Context) => {
    ctx.body = { name, params: ctx.params, route: (ctx as { _matchedRoute?: unknown })._matchedRoute ?? null };
  };
}

/** A router of the service's shape (allRoutes): exact paths, a /v1 prefix, nested routers, path parameters. */
function serviceShapedRouter(): Router {
  const pets = new Router({ prefix: '/v1', sensitive: true, strict: true });
  pets.get('listPets', '/pets', echo('listPets'));
  pets.post('createPet', '/pets', echo('createPet'));
  pets.get('getPet', '/pets/:petId', echo('getPet'));
  const docs = new Router({ sensitive: true, strict: true });
  docs.get('/docs', echo('docs'));
  docs.get('/docs/assets/:asset', echo('asset'));
  const router = new Router({ sensitive: true, strict: true });
  router.get('/healthz', echo('healthz'));
  router.use(docs.routes());
  router.use(pets.routes());
  return router;
}

let viaRoutes: ListeningKoa;
let viaDispatch: ListeningKoa;

beforeAll(async () => {
  const plain = new Koa();
  const plainRouter = serviceShapedRouter();
  plain.use(plainRouter.routes()).use(plainRouter.allowedMethods());
  viaRoutes = await listenKoa(plain);

  const dispatched = new Koa();
  const router = serviceShapedRouter();
  const dispatchRoute = routeDispatcher(router);
  dispatched.use((ctx, next) => dispatchRoute(ctx, ctx.path, next));
  dispatched.use(router.routes()).use(router.allowedMethods());
  viaDispatch = await listenKoa(dispatched);
});

afterAll(() => {
  viaRoutes?.server.close();
  viaDispatch?.server.close();
});

const PATHS = [
  '/v1/pets',
  '/v1/pets/123',
  '/v1/pets/9223372036854775807',
  '/v1/pets/%E2%9C%93',
  '/v1/pets/%ZZ',
  '/v1/pets/a%2Fb',
  '/v1/pets/',
  '/v1/pets/1/2',
  '/V1/pets',
  '/v1/Pets',
  '/healthz',
  '/healthz/',
  '/docs',
  '/docs/assets/app.css',
  '/nowhere',
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

async function answer(base: string, method: string, path: string) {
  const response = await fetch(base + path, { method });
  return { status: response.status, allow: response.headers.get('allow'), body: await response.text() };
}

describe('routeDispatcher', () => {
  it.each(METHODS)('answers %s on every path exactly as router.routes() and allowedMethods() do, the first time and again', async (method) => {
    // Twice: the second answer comes from the remembered match.
    for (const path of [...PATHS, ...PATHS]) {
      const expected = await answer(viaRoutes.url, method, path);
      const actual = await answer(viaDispatch.url, method, path);
      expect({ path, ...actual }).toEqual({ path, ...expected });
    }
  });

  it('decodes path parameters and names the route template as the router does, the first time and again', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await answer(viaDispatch.url, 'GET', '/v1/pets/%E2%9C%93');
      expect(JSON.parse(response.body)).toEqual({ name: 'getPet', params: { petId: '✓' }, route: '/v1/pets/:petId' });
    }
  });

  it('hands each request the params of its own path, and a handler cannot alter the ones remembered', async () => {
    const router = new Router({ prefix: '/v1', sensitive: true, strict: true });
    const seen: unknown[] = [];
    router.get('/pets/:petId', (ctx) => {
      seen.push(ctx.params.petId);
      expect(() => {
        ctx.params.petId = 'changed';
      }).toThrow(TypeError);
      ctx.status = 204;
    });
    const dispatchRoute = routeDispatcher(router);
    const app = new Koa().use((ctx, next) => dispatchRoute(ctx, ctx.path, next));
    const { server, url } = await listenKoa(app);
    try {
      for (const id of ['1', '2', '1', '2']) expect((await answer(url, 'GET', `/v1/pets/${id}`)).status).toBe(204);
      expect(seen).toEqual(['1', '2', '1', '2']);
    } finally {
      server.close();
    }
  });

  it('leaves a method the path has no route for to allowedMethods (405 with Allow)', async () => {
    const response = await answer(viaDispatch.url, 'PUT', '/v1/pets');
    expect(response.status).toBe(405);
    expect(response.allow).toBe('HEAD, GET, POST');
  });
});
