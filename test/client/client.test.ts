import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnimalStoreClient, AnimalStoreError, type Pet } from '../../client/src/animal-store-client.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { recordingFetch } from './recording-fetch.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

async function rejection(promise: Promise<unknown>): Promise<AnimalStoreError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AnimalStoreError);
  return error as AnimalStoreError;
}

async function collect(iterable: AsyncIterable<Pet>): Promise<Pet[]> {
  const pets: Pet[] = [];
  for await (const pet of iterable) pets.push(pet);
  return pets;
}

describe('AnimalStoreClient against the real service', () => {
  let server: TestServer;
  let client: AnimalStoreClient;

  beforeAll(async () => {
    server = await startTestServer();
    client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY });
  });
  afterAll(() => server.stop());

  it('creates a pet, then finds it by id and in the list', async () => {
    const created = await client.createPet({ name: 'Rex', categoryId: 7n, status: 'available' });
    expect(typeof created.id).toBe('bigint');
    expect(created).toEqual({ id: created.id, name: 'Rex', categoryId: 7n, status: 'available' });
    expect(await client.getPet(created.id)).toEqual(created);
    const page = await client.listPets({ status: 'available', limit: 100 });
    expect(page.pets).toContainEqual(created);
  });

  it('leaves status out when none was given, as the service does', async () => {
    const created = await client.createPet({ name: 'No status', categoryId: 1n });
    expect(created).toEqual({ id: created.id, name: 'No status', categoryId: 1n });
    expect('status' in (await client.getPet(created.id))).toBe(false);
  });

  it.each([
    ['the largest', INT64_MAX],
    ['the smallest', INT64_MIN],
  ])('round-trips %s int64 categoryId exactly, on the wire and back', async (_, categoryId) => {
    const created = await client.createPet({ name: `int64 ${categoryId}`, categoryId });
    expect(created.categoryId).toBe(categoryId);
    expect((await client.getPet(created.id)).categoryId).toBe(categoryId);
    const listed = await collect(client.allPets({ limit: 100 }));
    expect(listed.find((pet) => pet.id === created.id)?.categoryId).toBe(categoryId);
    // The digits the service stored and serves are the exact ones.
    const raw = await server.request('GET', `/v1/pets/${created.id}`);
    expect(raw.text).toContain(`"categoryId":${categoryId}`);
  });

  it('asks for a pet id beyond 2^53 exactly', async () => {
    const error = await rejection(client.getPet(INT64_MAX));
    expect(error.code).toBe('pet_not_found');
    expect(error.message).toContain('9223372036854775807');
  });

  it('answers getPet for an unknown id with a typed 404 carrying the X-Request-Id', async () => {
    const recorder = recordingFetch();
    const recording = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch });
    const error = await rejection(recording.getPet(123456789n));
    expect(error).toMatchObject({ name: 'AnimalStoreError', code: 'pet_not_found', status: 404, attempts: 1 });
    expect(error.message).toMatch(/./);
    expect(recorder.exchanges).toHaveLength(1);
    const exchange = recorder.exchanges[0]!;
    expect(error.requestId).toBe(exchange.responseHeaders?.get('x-request-id'));
    // The service echoes the id the client sent, so a call can be found in the service's logs.
    expect(error.requestId).toBe(exchange.requestHeaders.get('x-request-id'));
  });

  it.each([
    ['a wrong key', 'wrong-key', 'invalid_api_key'],
    ['no key', undefined, 'missing_api_key'],
  ])('answers a call with %s with a typed 401', async (_, apiKey, code) => {
    const unauthorised = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, ...(apiKey === undefined ? {} : { apiKey }) });
    const error = await rejection(unauthorised.listPets());
    expect(error).toMatchObject({ code, status: 401, attempts: 1 });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.message).toMatch(/key/i);
  });

  it('surfaces a body the service refuses as validation_failed, without retrying', async () => {
    const error = await rejection(client.createPet({ name: '', categoryId: 1n }));
    expect(error).toMatchObject({ code: 'validation_failed', status: 400, attempts: 1 });
    expect(error.message).toContain('name');
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    const limit = await rejection(client.listPets({ limit: 0 }));
    expect(limit).toMatchObject({ code: 'validation_failed', status: 400 });
  });

  it('replays a creation repeated with the same Idempotency-Key, and refuses the key with another body', async () => {
    const idempotencyKey = `replay-${Date.now()}`;
    const first = await client.createPet({ name: 'Once', categoryId: 3n }, { idempotencyKey });
    const again = await client.createPet({ name: 'Once', categoryId: 3n }, { idempotencyKey });
    expect(again).toEqual(first);
    const reused = await rejection(client.createPet({ name: 'Other', categoryId: 3n }, { idempotencyKey }));
    expect(reused).toMatchObject({ code: 'idempotency_key_reused', status: 422, idempotencyKey });
  });

  it('sends a fresh Idempotency-Key with every createPet call', async () => {
    const recorder = recordingFetch();
    const recording = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch });
    const a = await recording.createPet({ name: 'Twin', categoryId: 2n });
    const b = await recording.createPet({ name: 'Twin', categoryId: 2n });
    expect(a.id).not.toBe(b.id);
    const keys = recorder.exchanges.map((exchange) => exchange.requestHeaders.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('rejects an invalid cursor with a typed 400', async () => {
    const error = await rejection(client.listPets({ cursor: 'AAAAAAAAAAAAAAAAAAAAAAAA' }));
    expect(error).toMatchObject({ code: 'invalid_cursor', status: 400 });
  });
});

describe('AnimalStoreClient pagination against the real service', () => {
  let server: TestServer;
  let client: AnimalStoreClient;
  const created: Pet[] = [];
  const statuses = ['available', 'pending', 'sold', undefined] as const;

  beforeAll(async () => {
    server = await startTestServer();
    client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY });
    for (let i = 0; i < 23; i++) {
      const status = statuses[i % 4];
      created.push(await client.createPet({ name: `p${i}`, categoryId: BigInt(i), ...(status === undefined ? {} : { status }) }));
    }
  });
  afterAll(() => server.stop());

  it('returns a page with the next cursor and URL from the Link header, and none on the last page', async () => {
    const first = await client.listPets({ limit: 5, status: 'available' });
    expect(first.pets).toEqual(created.filter((pet) => pet.status === 'available').slice(0, 5));
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.nextUrl).toBe(`${server.url}/v1/pets?limit=5&status=available&cursor=${first.nextCursor}`);
    const second = await client.listPets({ limit: 5, status: 'available', cursor: first.nextCursor! });
    expect(second.pets).toEqual(created.filter((pet) => pet.status === 'available').slice(5));
    expect(second.nextCursor).toBeUndefined();
    expect(second.nextUrl).toBeUndefined();
  });

  it('iterates over every pet exactly once, in id order, across pages', async () => {
    const recorder = recordingFetch();
    const counting = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch });
    const pets = await collect(counting.allPets({ limit: 5 }));
    expect(pets).toEqual(created);
    expect(recorder.exchanges.map((exchange) => new URL(exchange.url).searchParams.has('cursor'))).toEqual([false, true, true, true, true]);
  });

  it('iterates over the pets of one status only', async () => {
    const sold = await collect(client.allPets({ status: 'sold', limit: 2 }));
    expect(sold).toEqual(created.filter((pet) => pet.status === 'sold'));
    expect(sold.length).toBe(6);
  });

  it('stops fetching when the loop stops', async () => {
    const recorder = recordingFetch();
    const counting = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch });
    for await (const pet of counting.allPets({ limit: 5 })) if (pet.id === created[6]!.id) break;
    expect(recorder.exchanges).toHaveLength(2);
  });
});
