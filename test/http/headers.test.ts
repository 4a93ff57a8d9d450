import { beforeAll, describe, expect, it } from 'vitest';
import { type TestResponse, type TestServer, useTestServer } from '../support/http-harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const server = useTestServer();
let petId: bigint;

beforeAll(async () => {
  const created = await server.createPet('{"name":"Known","categoryId":1}');
  petId = (created.json as { id: bigint }).id;
});

const json = { 'Content-Type': 'application/json' };

/** One request per kind of response the service gives, success and failure alike. */
const EVERY_KIND: ReadonlyArray<[string, number, (s: TestServer) => Promise<TestResponse>]> = [
  ['listPets', 200, (s) => s.request('GET', '/v1/pets')],
  ['createPet', 201, (s) => s.createPet('{"name":"Rex","categoryId":1}')],
  ['getPet', 200, (s) => s.request('GET', `/v1/pets/${petId}`)],
  ['healthz', 200, (s) => s.request('GET', '/healthz', { anonymous: true })],
  ['readyz', 200, (s) => s.request('GET', '/readyz', { anonymous: true })],
  ['validation failure', 400, (s) => s.createPet('{"name":""}')],
  ['malformed JSON', 400, (s) => s.createPet('{')],
  ['missing key', 401, (s) => s.request('GET', '/v1/pets', { anonymous: true })],
  ['unknown pet', 404, (s) => s.request('GET', '/v1/pets/424242')],
  ['unknown route', 404, (s) => s.request('GET', '/nowhere')],
  ['wrong method', 405, (s) => s.request('PATCH', '/v1/pets')],
  ['body too large', 413, (s) => s.request('POST', '/v1/pets', { headers: json, body: ' '.repeat(70_000) })],
  ['wrong content type', 415, (s) => s.request('POST', '/v1/pets', { headers: { 'Content-Type': 'text/plain' }, body: '{}' })],
];

describe('X-Content-Type-Options', () => {
  it.each(EVERY_KIND)('is nosniff on the %s response (%i)', async (_kind, status, send) => {
    const response = await send(server);
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('X-Request-Id', () => {
  it.each(EVERY_KIND)('is present on the %s response (%i)', async (_kind, status, send) => {
    const response = await send(server);
    expect(response.status).toBe(status);
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
  });

  it('echoes a well-formed client value', async () => {
    const response = await server.request('GET', '/v1/pets', { headers: { 'X-Request-Id': 'trace-abc.123:4_5' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-abc.123:4_5');
  });

  it('echoes a client value on an error response too', async () => {
    const response = await server.request('GET', '/v1/pets', { anonymous: true, headers: { 'X-Request-Id': 'req-401' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('x-request-id')).toBe('req-401');
  });

  it('generates a UUID when the client sends none', async () => {
    const response = await server.request('GET', '/v1/pets');
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });

  it('generates a different id for each request', async () => {
    const [a, b] = await Promise.all([server.request('GET', '/healthz'), server.request('GET', '/healthz')]);
    expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(b.headers.get('x-request-id')).toMatch(UUID);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it.each([
    ['300 characters long', 'a'.repeat(300)],
    ['containing spaces', 'id with spaces'],
    ['containing markup', '<script>alert(1)</script>'],
    ['containing a quote and a semicolon', 'a";b'],
  ])('replaces a hostile client value %s with a generated one', async (_kind, value) => {
    const response = await server.request('GET', '/v1/pets', { headers: { 'X-Request-Id': value } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).not.toBe(value);
    expect(response.headers.get('x-request-id')).toMatch(UUID);
  });
});

describe('response content types', () => {
  it('never answers with text/plain, for errors included', async () => {
    const responses = await Promise.all(EVERY_KIND.map(([, , send]) => send(server)));
    for (const response of responses) {
      expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    }
  });
});
