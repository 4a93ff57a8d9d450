import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AnimalStoreClient, AnimalStoreError, type RetryOptions } from '../../client/src/animal-store-client.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { freshMongoSettings } from '../support/mongo-test-db.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { recordingFetch, recordingSleep } from './recording-fetch.js';
import { errorReply, startScriptedServer, type ScriptedReply, type ScriptedServer } from './scripted-server.js';

const PET = '{"id":9223372036854775807,"name":"Rex","categoryId":-9223372036854775808}';
const created = (headers: Record<string, string> = {}): ScriptedReply => ({ status: 201, headers: { Location: '/v1/pets/9223372036854775807', ...headers }, body: PET });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('the call should fail'),
    (reason: unknown) => reason,
  );
}

async function namedPets(client: AnimalStoreClient, name: string) {
  const pets = [];
  for await (const pet of client.allPets({ limit: 100 })) if (pet.name === name) pets.push(pet);
  return pets;
}

describe('createPet retries against the real service', () => {
  let server: TestServer;
  let proxy: TcpProxy;
  let direct: AnimalStoreClient;

  beforeAll(async () => {
    server = await startTestServer();
    proxy = await createTcpProxy(server.url);
    await proxy.up();
    direct = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY });
  });
  afterAll(async () => {
    await proxy.down();
    await server.stop();
  });

  it('makes exactly one pet when the response to a create is lost and the client retries', async () => {
    const recorder = recordingFetch();
    const { sleep, delays } = recordingSleep();
    const client = new AnimalStoreClient({ baseUrl: `${proxy.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch, retry: { sleep } });
    proxy.dropResponses(2);

    const pet = await client.createPet({ name: 'lost twice', categoryId: 9223372036854775807n });

    expect(pet).toMatchObject({ name: 'lost twice', categoryId: 9223372036854775807n });
    // Three attempts: two stored-but-unanswered, then the replay of the first creation.
    expect(recorder.exchanges.map((exchange) => exchange.status)).toEqual([undefined, undefined, 201]);
    expect(recorder.exchanges[2]!.responseHeaders!.get('idempotent-replayed')).toBe('true');
    const keys = new Set(recorder.exchanges.map((exchange) => exchange.requestHeaders.get('idempotency-key')));
    expect(keys.size).toBe(1);
    expect(delays).toHaveLength(2);
    expect(await namedPets(direct, 'lost twice')).toEqual([pet]);
  });

  it('makes one pet from concurrent creates with one key, each answered 201 at its first attempt', async () => {
    const recorder = recordingFetch();
    const { sleep } = recordingSleep(5);
    const client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch, retry: { sleep, maxAttempts: 50 } });
    const idempotencyKey = `burst-${Date.now()}`;

    const pets = await Promise.all(Array.from({ length: 8 }, () => client.createPet({ name: 'burst', categoryId: 5n }, { idempotencyKey })));

    expect(new Set(pets.map((pet) => pet.id)).size).toBe(1);
    expect(await namedPets(direct, 'burst')).toEqual([pets[0]]);
    expect(recorder.exchanges.map((exchange) => exchange.status)).toEqual(Array(8).fill(201));
    const replayed = recorder.exchanges.filter((exchange) => exchange.responseHeaders!.get('idempotent-replayed') === 'true');
    expect(replayed).toHaveLength(7);
  });

  it('gives up after the configured attempts with a network_error carrying the last request id', async () => {
    const recorder = recordingFetch();
    const { sleep, delays } = recordingSleep();
    const client = new AnimalStoreClient({ baseUrl: `${proxy.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch, retry: { sleep, maxAttempts: 3 } });
    proxy.dropResponses(3);

    const error = await rejection(client.createPet({ name: 'never answered', categoryId: 1n }, { idempotencyKey: 'kept-for-later' }));

    expect(error).toBeInstanceOf(AnimalStoreError);
    expect(error).toMatchObject({ code: 'network_error', status: undefined, attempts: 3, idempotencyKey: 'kept-for-later' });
    expect((error as AnimalStoreError).requestId).toBe(recorder.exchanges[2]!.requestHeaders.get('x-request-id'));
    expect((error as AnimalStoreError).cause).toBeDefined();
    expect(delays).toHaveLength(2);
    // The first attempt was stored: retrying later with the kept key replays it instead of adding a second pet.
    const later = await direct.createPet({ name: 'never answered', categoryId: 1n }, { idempotencyKey: 'kept-for-later' });
    expect(await namedPets(direct, 'never answered')).toEqual([later]);
  });
});

describe.runIf(inject('storage') === 'mongodb')('createPet retries through MongoDB failures', () => {
  let mongoRelay: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    mongoRelay = await createTcpProxy(inject('mongoUrl'));
    await mongoRelay.up();
    server = await startTestServer({ mongodb: freshMongoSettings('client', { url: mongoRelay.url, timeoutMs: 1000 }) });
  });
  afterAll(async () => {
    await mongoRelay.up();
    await server.stop();
    await mongoRelay.down();
  });

  it('retries a real 503 after its Retry-After and makes exactly one pet', async () => {
    const recorder = recordingFetch();
    // The wait the client asks for is when storage comes back.
    const { sleep, delays } = recordingSleep(0, () => mongoRelay.up());
    const client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch, retry: { sleep, maxAttempts: 6, maxTotalDelayMs: 60_000 } });
    await mongoRelay.down();

    const pet = await client.createPet({ name: 'through the outage', categoryId: 2n });

    expect(recorder.exchanges[0]!.status).toBe(503);
    expect(delays[0]).toBe(5000);
    expect(recorder.exchanges.at(-1)!.status).toBe(201);
    expect(new Set(recorder.exchanges.map((exchange) => exchange.requestHeaders.get('idempotency-key'))).size).toBe(1);
    const reader = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY });
    expect(await namedPets(reader, 'through the outage')).toEqual([pet]);
  });

  it('retries a 503 whose pet was stored after all: the same key gets that very pet, stored once', async () => {
    const recorder = recordingFetch();
    const { sleep, delays } = recordingSleep();
    const client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY, fetch: recorder.fetch, retry: { sleep } });
    const name = `stored-anyway-${Date.now()}`;
    // The insert reaches MongoDB and its reply is lost: the pet is stored, the service answers 503.
    const lost = mongoRelay.loseReplyTo(name, 'reset');

    const pet = await client.createPet({ name, categoryId: 3n });
    await lost;

    expect(recorder.exchanges.map((exchange) => exchange.status)).toEqual([503, 201]);
    expect(delays).toEqual([5000]);
    expect(new Set(recorder.exchanges.map((exchange) => exchange.requestHeaders.get('idempotency-key'))).size).toBe(1);
    // The pet the lost insert stored carries the key: the retry is its replay.
    expect(recorder.exchanges[1]!.responseHeaders!.get('idempotent-replayed')).toBe('true');
    const reader = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_API_KEY });
    expect(await namedPets(reader, name)).toEqual([pet]);
  });
});

describe('the retry policy, against a scripted server', () => {
  let scripted: ScriptedServer | undefined;
  afterEach(async () => {
    await scripted?.close();
    scripted = undefined;
  });

  async function clientFor(replies: ScriptedReply[], retry: RetryOptions = {}) {
    scripted = await startScriptedServer(replies);
    const recorded = recordingSleep();
    const client = new AnimalStoreClient({ baseUrl: scripted.baseUrl, apiKey: 'k', retry: { sleep: recorded.sleep, ...retry } });
    return { client, server: scripted, delays: recorded.delays };
  }

  it('retries a 503, waiting the Retry-After seconds, with the same Idempotency-Key', async () => {
    const { client, server, delays } = await clientFor([errorReply(503, 'storage_unavailable', { 'Retry-After': '2' }), created()]);
    const pet = await client.createPet({ name: 'Rex', categoryId: -9223372036854775808n });
    expect(pet).toEqual({ id: 9223372036854775807n, name: 'Rex', categoryId: -9223372036854775808n });
    expect(delays).toEqual([2000]);
    expect(server.received.map((request) => request.headers['idempotency-key'])).toEqual([expect.any(String), server.received[0]!.headers['idempotency-key']]);
    expect(server.received.map((request) => request.body)).toEqual(Array(2).fill('{"name":"Rex","categoryId":-9223372036854775808}'));
  });

  it('retries 503 twice with the given key, then takes the replay', async () => {
    const { client, server, delays } = await clientFor([
      errorReply(503, 'storage_unavailable', { 'Retry-After': '1' }),
      errorReply(503, 'storage_unavailable', { 'Retry-After': '1' }),
      created({ 'Idempotent-Replayed': 'true' }),
    ]);
    const pet = await client.createPet({ name: 'Rex', categoryId: 1n }, { idempotencyKey: 'given-key' });
    expect(pet.id).toBe(9223372036854775807n);
    expect(delays).toEqual([1000, 1000]);
    expect(server.received.map((request) => request.headers['idempotency-key'])).toEqual(['given-key', 'given-key', 'given-key']);
  });

  it('backs off exponentially with jitter when there is no Retry-After, within the caps', async () => {
    const { client, server, delays } = await clientFor([errorReply(503, 'storage_unavailable')], { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300 });
    const error = await rejection(client.createPet({ name: 'Rex', categoryId: 1n }));
    expect(error).toMatchObject({ code: 'storage_unavailable', status: 503, attempts: 5, requestId: 'scripted-503' });
    expect(server.received).toHaveLength(5);
    const ceilings = [100, 200, 300, 300];
    expect(delays).toHaveLength(4);
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(ceilings[i]! / 2);
      expect(delay).toBeLessThanOrEqual(ceilings[i]!);
    });
  });

  it('stops after the configured attempts with the last error, typed', async () => {
    const { client, server, delays } = await clientFor([errorReply(503, 'storage_unavailable', { 'Retry-After': '1' })]);
    const error = await rejection(client.createPet({ name: 'Rex', categoryId: 1n }));
    expect(error).toBeInstanceOf(AnimalStoreError);
    expect(error).toMatchObject({ code: 'storage_unavailable', status: 503, attempts: 4, retryAfterSeconds: 1, message: 'scripted storage_unavailable' });
    expect(server.received).toHaveLength(4);
    expect(delays).toEqual([1000, 1000, 1000]);
  });

  it('does not wait past the total budget: a Retry-After beyond it ends the call at once', async () => {
    const { client, server, delays } = await clientFor([errorReply(503, 'storage_unavailable', { 'Retry-After': '6' })], { maxTotalDelayMs: 15_000 });
    const error = await rejection(client.createPet({ name: 'Rex', categoryId: 1n }));
    expect(error).toMatchObject({ code: 'storage_unavailable', attempts: 3 });
    expect(server.received).toHaveLength(3);
    expect(delays).toEqual([6000, 6000]);
  });

  it.each([
    [500, 'internal_error'],
    [429, 'rate_limited'],
    [422, 'idempotency_key_reused'],
    [400, 'validation_failed'],
  ])('does not retry a create answered %i %s', async (status, code) => {
    const { client, server, delays } = await clientFor([errorReply(status, code, { 'Retry-After': '1' }), created()]);
    await expect(client.createPet({ name: 'Rex', categoryId: 1n })).rejects.toMatchObject({ code, status, attempts: 1 });
    expect(server.received).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('retries reads on 503 but not on 500', async () => {
    const pets = `[${PET}]`;
    const { client, server, delays } = await clientFor([errorReply(503, 'storage_unavailable', { 'Retry-After': '1' }), { status: 200, body: pets }]);
    const page = await client.listPets({ limit: 1 });
    expect(page.pets).toEqual([{ id: 9223372036854775807n, name: 'Rex', categoryId: -9223372036854775808n }]);
    expect(server.received.map((request) => request.url)).toEqual(['/v1/pets?limit=1', '/v1/pets?limit=1']);
    expect(delays).toEqual([1000]);
    await server.close();

    const failed = await clientFor([errorReply(500, 'internal_error'), { status: 200, body: PET }]);
    await expect(failed.client.getPet(1n)).rejects.toMatchObject({ code: 'internal_error', attempts: 1 });
  });

  it('turns retries off with maxAttempts 1', async () => {
    const { client, server } = await clientFor([errorReply(503, 'storage_unavailable')], { maxAttempts: 1 });
    await expect(client.listPets()).rejects.toMatchObject({ code: 'storage_unavailable', attempts: 1 });
    expect(server.received).toHaveLength(1);
  });

  it('times out an attempt that gets no answer and reports a network_error after the last one', async () => {
    scripted = await startScriptedServer([{ status: 200, hang: true }]);
    const server = scripted;
    const timing = new AnimalStoreClient({ baseUrl: server.baseUrl, timeoutMs: 50, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await rejection(timing.listPets());
    expect(error).toMatchObject({ code: 'network_error', status: undefined, attempts: 2 });
    expect((error as Error).message).toMatch(/no response \(2 attempts\): No complete response within 50 ms/);
    expect(server.received).toHaveLength(2);
  });

  it('reports a refused connection as network_error once the attempts are spent', async () => {
    const { server } = await clientFor([created()]);
    const baseUrl = server.baseUrl;
    await server.close();
    const { sleep, delays } = recordingSleep();
    const refused = new AnimalStoreClient({ baseUrl, retry: { sleep } });
    const error = await rejection(refused.createPet({ name: 'Rex', categoryId: 1n }));
    expect(error).toMatchObject({ code: 'network_error', status: undefined, attempts: 4 });
    expect(delays).toHaveLength(3);
  });

  it('rejects with the abort reason, not a retry, when the caller aborts during a wait', async () => {
    scripted = await startScriptedServer([errorReply(503, 'storage_unavailable', { 'Retry-After': '30' })]);
    const controller = new AbortController();
    const client = new AnimalStoreClient({ baseUrl: scripted.baseUrl, retry: { maxTotalDelayMs: 60_000 } });
    const call = client.createPet({ name: 'Rex', categoryId: 1n }, { signal: controller.signal });
    while (scripted.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user gave up'));
    await expect(call).rejects.toThrow('user gave up');
    expect(scripted.received).toHaveLength(1);
  });

  it('treats a response outside the contract as unexpected_response', async () => {
    const { client } = await clientFor([{ status: 502, headers: { 'Content-Type': 'text/html' }, body: '<html>Bad gateway</html>' }]);
    await expect(client.listPets()).rejects.toMatchObject({ code: 'unexpected_response', status: 502 });
    await scripted!.close();
    const wrongShape = await clientFor([{ status: 201, body: '{"id":1.5,"name":"Rex","categoryId":1}' }]);
    await expect(wrongShape.client.createPet({ name: 'Rex', categoryId: 1n })).rejects.toMatchObject({ code: 'unexpected_response', status: 201 });
  });

  it('never follows a next link to another origin (it would carry the key)', async () => {
    const { client } = await clientFor([{ status: 200, headers: { Link: '<https://elsewhere.example/v1/pets?cursor=abc>; rel="next"' }, body: '[]' }]);
    await expect(client.listPets()).rejects.toMatchObject({ code: 'unexpected_response', message: expect.stringContaining('origin') });
  });
});
