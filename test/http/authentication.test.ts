import { beforeAll, describe, expect, it } from 'vitest';
import { type TestResponse, useTestServer } from '../support/http-harness.js';
import { rawExchange } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { expectError, expectJsonContentType } from './expect-http.js';

const server = useTestServer();
let existingId: bigint;

beforeAll(async () => {
  const created = await server.createPet('{"name":"Rex","categoryId":1}');
  existingId = (created.json as { id: bigint }).id;
});

const withAuthorization = (authorization: string) => ({ headers: { Authorization: authorization } });

function expectUnauthorized(response: TestResponse, code: 'missing_api_key' | 'invalid_api_key'): void {
  expectError(response, 401, code);
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
}

describe('bearer authentication on /v1', () => {
  it('answers 401 missing_api_key with WWW-Authenticate: Bearer when no Authorization header is sent', async () => {
    const response = await server.request('GET', '/v1/pets', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
    expect(response.headers.get('www-authenticate')).not.toMatch(/error=/);
  });

  it('answers 401 invalid_api_key with error="invalid_request" for a Basic credential', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization('Basic x'));
    expectUnauthorized(response, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_request"/);
  });

  it('answers 401 for the scheme "Bearer" with no token', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization('Bearer'));
    expectUnauthorized(response, 'invalid_api_key');
  });

  it('answers 401 for "Bearer " with an empty token', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization('Bearer    '));
    expectUnauthorized(response, 'invalid_api_key');
  });

  it('answers 401 for a token with characters outside the RFC 6750 b64token set', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization(`Bearer ${TEST_API_KEY} extra`));
    expectUnauthorized(response, 'invalid_api_key');
  });

  it('answers 401 invalid_api_key with error="invalid_token" for an unknown key', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization('Bearer not-a-configured-key'));
    expectUnauthorized(response, 'invalid_api_key');
    expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('answers 401 for a key that differs from a configured one only by a suffix', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization(`Bearer ${TEST_API_KEY}x`));
    expectUnauthorized(response, 'invalid_api_key');
  });

  it('accepts the configured key with the scheme "Bearer"', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization(`Bearer ${TEST_API_KEY}`));
    expect(response.status).toBe(200);
    expectJsonContentType(response);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('accepts the scheme in lower case ("bearer <key>")', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization(`bearer ${TEST_API_KEY}`));
    expect(response.status).toBe(200);
    expect(Array.isArray(response.json)).toBe(true);
  });

  it('accepts the scheme in upper case ("BEARER <key>")', async () => {
    const response = await server.request('GET', '/v1/pets', withAuthorization(`BEARER ${TEST_API_KEY}`));
    expect(response.status).toBe(200);
    expect(Array.isArray(response.json)).toBe(true);
  });

  it('guards createPet: 401 without a key and nothing is stored', async () => {
    const response = await server.request('POST', '/v1/pets', {
      anonymous: true,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Sneaky","categoryId":1}',
    });
    expectUnauthorized(response, 'missing_api_key');
    const list = await server.request('GET', '/v1/pets?limit=100');
    expect(list.text).not.toContain('Sneaky');
  });

  it.each([
    ['/V1/pets', 404],
    ['/V1/Pets', 404],
    ['/v1/PETS', 401],
  ])('serves no operation without a key at %s (paths are case-sensitive): %i', async (path, status) => {
    const listed = await server.request('GET', path, { anonymous: true });
    expect(listed.status).toBe(status);
    const created = await server.request('POST', path, {
      anonymous: true,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"CaseBypass","categoryId":1}',
    });
    expect(created.status).toBe(status);
    const fetched = await server.request('GET', `${path}/${existingId}`, { anonymous: true });
    expect(fetched.status).toBe(status);
    expect(fetched.text).not.toContain('Rex');
    const list = await server.request('GET', '/v1/pets?limit=100');
    expect(list.text).not.toContain('CaseBypass');
  });

  it('guards getPet: 401 without a key for an existing pet', async () => {
    const response = await server.request('GET', `/v1/pets/${existingId}`, { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
    expect(response.text).not.toContain('Rex');
  });
});

describe('authentication precedence', () => {
  it('answers 401, not 400, for an invalid body sent without a key', async () => {
    const response = await server.request('POST', '/v1/pets', {
      anonymous: true,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":""}',
    });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 400, for malformed JSON sent with an unknown key', async () => {
    const response = await server.request('POST', '/v1/pets', {
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer wrong' },
      body: '{"name":',
    });
    expectUnauthorized(response, 'invalid_api_key');
  });

  it('answers 401, not 415, for a wrong content type sent without a key', async () => {
    const response = await server.request('POST', '/v1/pets', {
      anonymous: true,
      headers: { 'Content-Type': 'text/plain' },
      body: 'hello',
    });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 400, for a non-integer petId without a key', async () => {
    const response = await server.request('GET', '/v1/pets/abc', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 400, for an invalid limit without a key', async () => {
    const response = await server.request('GET', '/v1/pets?limit=0', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 404, for an unknown pet without a key', async () => {
    const response = await server.request('GET', '/v1/pets/987654321', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 404, for an unknown route under /v1 without a key', async () => {
    const response = await server.request('GET', '/v1/nowhere', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
  });

  it('answers 401, not 405, for a wrong method under /v1 without a key', async () => {
    const response = await server.request('DELETE', '/v1/pets', { anonymous: true });
    expectUnauthorized(response, 'missing_api_key');
  });
});

describe('health endpoints', () => {
  it('answers GET /healthz with 200 JSON without a key', async () => {
    const response = await server.request('GET', '/healthz', { anonymous: true });
    expect(response.status).toBe(200);
    expectJsonContentType(response);
    expect(response.json).toEqual({ status: 'ok' });
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  it('answers GET /readyz with 200 JSON without a key while storage is reachable', async () => {
    const response = await server.request('GET', '/readyz', { anonymous: true });
    expect(response.status).toBe(200);
    expectJsonContentType(response);
    expect(response.json).toEqual({ status: 'ready' });
  });

  it('ignores an invalid key on the health endpoints', async () => {
    const response = await server.request('GET', '/healthz', withAuthorization('Bearer wrong'));
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ status: 'ok' });
  });
});

describe('a key proved on a keep-alive connection', () => {
  const OTHER_KEY = 'other-key-0123456789abcdefghijklmnopqrstuvwxy';
  const twoKeys = useTestServer({ apiKeys: [TEST_API_KEY, OTHER_KEY] });
  const get = (key: string, last = false) =>
    `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;
  const statuses = (exchange: string) => [...exchange.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));

  it('is asked again for every header that differs from the one proved: a wrong key, another key, the first again', async () => {
    // The wrong key has the proved key's length and differs in its last character only.
    const wrong = `${TEST_API_KEY.slice(0, -1)}Z`;
    const exchange = await rawExchange(twoKeys.url, [get(TEST_API_KEY), get(wrong), get(TEST_API_KEY), get(OTHER_KEY), get('nope'), get(OTHER_KEY, true)]);
    expect(statuses(exchange)).toEqual([200, 401, 200, 200, 401, 200]);
  });
});
