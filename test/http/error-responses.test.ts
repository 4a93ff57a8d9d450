import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose, openStorage, TOKENS } from '../../src/container.js';
import { useTestServer } from '../support/http-harness.js';
import { TEST_API_KEY, testConfig } from '../support/test-config.js';
import { expectError, expectInvalid, idOf } from './expect-http.js';

const BODY_LIMIT = 64 * 1024;

const server = useTestServer();

const postPets = (contentType: string | undefined, body: string) =>
  server.request('POST', '/v1/pets', { headers: contentType === undefined ? {} : { 'Content-Type': contentType }, body });

/** A valid NewPet body padded with spaces to exactly `bytes` bytes. */
function paddedPet(bytes: number): string {
  const json = '{"name":"Padded","categoryId":1}';
  return json.slice(0, -1) + ' '.repeat(bytes - json.length) + '}';
}

describe('unknown routes', () => {
  it('answers 404 not_found as JSON for an unknown path outside /v1, naming it', async () => {
    expectError(await server.request('GET', '/nowhere', { anonymous: true }), 404, 'not_found', /\/nowhere/);
  });

  it('answers 404 not_found as JSON for an unknown path under /v1', async () => {
    expectError(await server.request('GET', '/v1/pets/1/owners'), 404, 'not_found');
  });

  it.each(['/v1/pets/', '/v1/pets/1/', '/healthz/', '/v1/openapi.json/'])('answers 404 not_found for %s: only the documented paths are routes', async (path) => {
    expectError(await server.request('GET', path), 404, 'not_found');
  });

  it('answers 404 not_found for the unversioned path /pets', async () => {
    expectError(await server.request('GET', '/pets'), 404, 'not_found');
  });
});

describe('wrong methods', () => {
  it('answers 405 method_not_allowed with Allow listing GET and POST on /v1/pets', async () => {
    const response = await server.request('DELETE', '/v1/pets');
    expectError(response, 405, 'method_not_allowed');
    const allow = response.headers.get('allow')!.split(/\s*,\s*/);
    expect(allow).toEqual(expect.arrayContaining(['GET', 'POST']));
    expect(allow).not.toContain('DELETE');
  });

  it('answers 405 with Allow listing GET on /v1/pets/{petId}', async () => {
    const response = await server.request('PUT', '/v1/pets/1', {
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expectError(response, 405, 'method_not_allowed');
    const allow = response.headers.get('allow')!.split(/\s*,\s*/);
    expect(allow).toContain('GET');
    expect(allow).not.toContain('PUT');
    expect(allow).not.toContain('POST');
  });

  it.each(['/v1/pets', '/v1/pets/1', '/healthz', '/v1/openapi.json'])('answers OPTIONS %s with 405 and Allow, as JSON', async (path) => {
    const response = await server.request('OPTIONS', path);
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toContain('GET');
  });

  it('answers a method it does not know with 501 not_implemented, without Allow', async () => {
    const response = await server.request('PROPFIND', '/v1/pets');
    expectError(response, 501, 'not_implemented');
    expect(response.headers.get('allow')).toBeNull();
  });
});

describe('malformed JSON', () => {
  it.each([
    ['{"name":', 'truncated'],
    ["{'name':'Rex','categoryId':1}", 'single-quoted'],
    ['{"name":"Rex","categoryId":1,}', 'with a trailing comma'],
    ['{"name":"Rex","categoryId":1} x', 'with trailing garbage'],
    ['{"name":"Rex","name":"Max","categoryId":1}', 'with a duplicate key'],
  ])('answers 400 malformed_json for a %s body (%s)', async (body) => {
    expectError(await postPets('application/json', body), 400, 'malformed_json');
  });

  it('answers 400 malformed_json for hostile nesting without crashing', async () => {
    const body = `{"name":"Deep","categoryId":1,"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expectError(await postPets('application/json', body), 400, 'malformed_json');
    const health = await server.request('GET', '/healthz');
    expect(health.status).toBe(200);
  });
});

describe('body size limit', () => {
  it('accepts a body of exactly 64 KiB', async () => {
    const body = paddedPet(BODY_LIMIT);
    expect(Buffer.byteLength(body)).toBe(BODY_LIMIT);
    const response = await postPets('application/json', body);
    expect(response.status).toBe(201);
    expect((response.json as { name: string }).name).toBe('Padded');
  });

  it('answers 413 payload_too_large for a body one byte over 64 KiB', async () => {
    const response = await postPets('application/json', paddedPet(BODY_LIMIT + 1));
    expectError(response, 413, 'payload_too_large');
  });

  it('answers 413 payload_too_large for a 1 MiB body and keeps serving', async () => {
    const response = await postPets('application/json', paddedPet(1024 * 1024));
    expectError(response, 413, 'payload_too_large');
    expect((await server.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('content type', () => {
  it('answers 415 unsupported_media_type for text/plain', async () => {
    const response = await postPets('text/plain', '{"name":"Rex","categoryId":1}');
    expectError(response, 415, 'unsupported_media_type', /application\/json/);
  });

  it('answers 415 for a body sent with an empty Content-Type', async () => {
    const response = await server.request('POST', '/v1/pets', {
      headers: { 'Content-Type': '' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expectError(response, 415, 'unsupported_media_type');
  });

  it('answers 415 for form-encoded bodies', async () => {
    const response = await postPets('application/x-www-form-urlencoded', 'name=Rex&categoryId=1');
    expectError(response, 415, 'unsupported_media_type');
  });

  it('answers 415 for a charset other than UTF-8', async () => {
    const response = await postPets('application/json; charset=iso-8859-1', '{"name":"Rex","categoryId":1}');
    expectError(response, 415, 'unsupported_media_type');
  });

  it('accepts application/json with charset=utf-8', async () => {
    const response = await postPets('application/json; charset=utf-8', '{"name":"Rex","categoryId":1}');
    expect(response.status).toBe(201);
    expect(typeof idOf(response)).toBe('bigint');
  });
});

describe('validation errors', () => {
  it('renders a domain validation failure as 400 validation_failed', async () => {
    expectInvalid(await postPets('application/json', '{"name":"Rex"}'), 'categoryId');
  });
});

describe('unexpected failures', () => {
  let failing: Server;
  let baseUrl: string;
  const reported: unknown[] = [];

  beforeAll(async () => {
    const storage = await openStorage(testConfig(), { logger: pino({ level: 'silent' }) });
    const container = compose(testConfig(), {
      storage,
      apiKeys: [TEST_API_KEY],
      onUnexpectedError: (error) => reported.push(error),
      logger: pino({ level: 'silent' }),
      isDraining: () => false,
    });
    // The real composition, with only the readiness probe (an HTTP-adapter dependency, not a port) made to throw:
    // the one way to reach a 500 from outside.
    container
      .rebind(TOKENS.readiness)
      .toConstantValue({ isReady: () => Promise.reject(new Error('secret detail at /internal/path.ts:42')) });
    failing = container.get(TOKENS.httpApp).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => failing.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => failing.close(() => resolve()));
  });

  it('answers 500 internal_error with a generic message and no internals', async () => {
    const response = await fetch(`${baseUrl}/readyz`);
    const text = await response.text();
    expectError({ status: response.status, headers: response.headers, text, json: undefined }, 500, 'internal_error');
    expect(text).not.toMatch(/secret|internal\/path|\.ts|at /);
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toContain('secret detail');
  });

  it('does not report a 501 for an unknown method as unexpected', async () => {
    const before = reported.length;
    const response = await fetch(`${baseUrl}/v1/pets`, { method: 'PROPFIND', headers: { Authorization: `Bearer ${TEST_API_KEY}` } });
    expect(response.status).toBe(501);
    expect(reported).toHaveLength(before);
  });
});
