import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from '../support/http-harness.js';
import { fuzzParameters } from './fuzz-settings.js';
import { hostileRequest, type FuzzRequest } from './hostile-requests.js';
import { POLLUTION_MARKERS } from './json-bodies.js';
import { checkGetPetMiss, checkResponse, expectPetShape, ObservedStore, petText } from './response-invariants.js';

// The server runs in this process, so a polluted prototype would show here.
const prototypeSnapshot = () =>
  [Object.prototype, Array.prototype, Function.prototype].map((proto) =>
    Reflect.ownKeys(proto).map((key) => [String(key), Object.getOwnPropertyDescriptor(proto, key)]),
  );

describe('hostile input over HTTP', () => {
  let server: TestServer;
  const store = new ObservedStore();
  const statuses = new Map<number, number>();
  const oracles = new Map<string, number>();
  const before = prototypeSnapshot();

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
    const counts = (map: Map<unknown, number>) => JSON.stringify(Object.fromEntries([...map].sort()));
    console.log(`fuzz hostile requests: ${store.created} created; statuses ${counts(statuses)}; known answers ${counts(oracles)}`);
  });

  const send = (request: FuzzRequest): Promise<TestResponse> =>
    server.request(request.method, request.path, {
      headers: request.authorization === undefined ? request.headers : { ...request.headers, Authorization: request.authorization },
      anonymous: request.authorization === undefined,
      ...(request.body === undefined ? {} : { body: request.body }),
    });

  it('never answers 5xx, answers errors as Error bodies and successes as exact Pets', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (request) => {
        const response = await send(request);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const kind = request.expected?.kind ?? 'none';
        oracles.set(kind, (oracles.get(kind) ?? 0) + 1);
        checkResponse(request, response, store);
        checkGetPetMiss(request, response, store);
      }),
      fuzzParameters('hostile requests', 2),
    );
  });

  it('stores exactly the pets it answered 201 for, each reading back identical', async () => {
    const listed: string[] = [];
    let path: string | undefined = '/v1/pets?limit=100';
    while (path !== undefined) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(200);
      listed.push(...(response.json as unknown[]).map((pet) => petText(expectPetShape(pet))));
      path = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
    }
    expect(listed.length).toBe(store.created);
    expect(listed).toEqual(store.pets.map(petText));
    for (const pet of store.pets.slice(-20)) {
      expect((await server.request('GET', `/v1/pets/${pet.id}`)).text).toBe(petText(pet));
    }
  });

  it('leaves Object.prototype and its relatives untouched', () => {
    const probe = {} as Record<string, unknown>;
    for (const marker of POLLUTION_MARKERS) expect(probe[marker]).toBeUndefined();
    expect(prototypeSnapshot()).toEqual(before);
  });
});
