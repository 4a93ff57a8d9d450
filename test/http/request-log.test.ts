import 'reflect-metadata';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logUnexpectedError } from '../../src/adapters/http/observe-requests.js';
import { sha256Hex } from '../../src/adapters/keys/hashed-api-key-verifier.js';
import { compose, openStorage, TOKENS } from '../../src/container.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';
import { TEST_API_KEY, testConfig } from '../support/test-config.js';

const COOKIE = 'session=cookie-secret-4242';

describe('the request log', () => {
  let logs: CapturedLogs;
  let server: TestServer;

  beforeAll(async () => {
    logs = await captureLogs();
    server = await startTestServer({ logLevel: 'info' }, { logger: logs.logger });
  });
  afterAll(() => server.stop());

  /** The request line for the response with this X-Request-Id. */
  const lineFor = (requestId: string) => {
    const found = logs.entries().filter((entry) => entry.requestId === requestId);
    expect(found).toHaveLength(1);
    return found[0]!;
  };

  it('writes one JSON line per request with id, method, route template, status, duration and key id', async () => {
    const created = await server.createPet('{"name":"Rex","categoryId":1}');
    const id = String((created.json as { id: bigint }).id);
    const response = await server.request('GET', `/v1/pets/${id}`, { headers: { 'X-Request-Id': 'log-get-1' } });
    expect(response.status).toBe(200);
    const line = lineFor('log-get-1');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/v1/pets/:petId',
      status: 200,
      apiKeyId: `key_${sha256Hex(TEST_API_KEY).slice(0, 12)}`,
      code: null,
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs as number).toBeGreaterThanOrEqual(0);
    expect(typeof line.time).toBe('number');
  });

  it('labels a request refused before routing with its route template and no key id', async () => {
    const response = await server.request('GET', '/v1/pets', { anonymous: true, headers: { 'X-Request-Id': 'log-401' } });
    expect(response.status).toBe(401);
    expect(lineFor('log-401')).toMatchObject({ route: '/v1/pets', status: 401, apiKeyId: null });
  });

  it('gives route null for a path no route matches, and logs 405 with the template', async () => {
    await server.request('GET', '/nowhere/at/all', { headers: { 'X-Request-Id': 'log-404' } });
    await server.request('DELETE', '/v1/pets', { headers: { 'X-Request-Id': 'log-405' } });
    expect(lineFor('log-404')).toMatchObject({ route: null, status: 404, method: 'GET' });
    expect(lineFor('log-405')).toMatchObject({ route: '/v1/pets', status: 405, method: 'DELETE' });
  });

  it('names the error code of each error answer, as its body does', async () => {
    const json = { 'Content-Type': 'application/json' };
    const answers = {
      'log-invalid': await server.request('POST', '/v1/pets', { headers: { ...json, 'X-Request-Id': 'log-invalid' }, body: '{"name":"Rex"}' }),
      'log-malformed': await server.request('POST', '/v1/pets', { headers: { ...json, 'X-Request-Id': 'log-malformed' }, body: '{"name":' }),
      'log-unknown': await server.request('GET', '/v1/pets/9000000000000000000', { headers: { 'X-Request-Id': 'log-unknown' } }),
    };
    const codes = Object.fromEntries(Object.entries(answers).map(([id, answer]) => [id, [answer.status, lineFor(id).status, lineFor(id).code]]));
    expect(codes).toEqual({
      'log-invalid': [400, 400, 'validation_failed'],
      'log-malformed': [400, 400, 'malformed_json'],
      'log-unknown': [404, 404, 'pet_not_found'],
    });
    for (const [id, answer] of Object.entries(answers)) expect((answer.json as { code: string }).code).toBe(lineFor(id).code);
  });

  it("names the code of the server's own answers too (a head over the size limit)", async () => {
    const response = await fetch(`${server.url}/v1/pets`, { headers: { 'X-Request-Id': 'log-431', 'X-Padding': 'x'.repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(logs.entries().find((entry) => entry.status === 431)).toMatchObject({ msg: 'request', code: 'headers_too_large' });
  });

  it('leaves probes and scrapes out at info: /healthz, /readyz and /metrics write no line', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await server.request('GET', path, { headers: { 'X-Request-Id': `log-quiet-${path.slice(1)}` } });
      expect(response.status).toBe(200);
    }
    await server.request('GET', '/v1/pets', { headers: { 'X-Request-Id': 'log-after-probes' } });
    expect(lineFor('log-after-probes')).toMatchObject({ status: 200 });
    const quiet = logs.entries().filter((entry) => String(entry.requestId).startsWith('log-quiet') || ['/healthz', '/readyz', '/metrics'].includes(String(entry.route)));
    expect(quiet).toEqual([]);
  });

  it('writes no debug line at info', () => {
    expect(logs.entries().filter((entry) => (entry.level as number) < 30)).toEqual([]);
  });

  it('never writes the key, the Authorization header or cookies, whatever the outcome', async () => {
    const headers = { Cookie: COOKIE, 'X-Request-Id': 'log-secret' };
    await server.request('GET', '/v1/pets', { headers });
    await server.request('GET', '/v1/pets', { headers: { ...headers, Authorization: 'Bearer not-a-known-key-0000' } });
    await server.request('GET', '/v1/pets', { headers: { ...headers, Authorization: `Basic ${TEST_API_KEY}` } });
    const text = logs.text();
    expect(text).toContain('log-secret');
    for (const secret of [TEST_API_KEY, 'not-a-known-key-0000', 'cookie-secret-4242', 'Bearer', 'Basic', 'authorization']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('the logger', () => {
  it('redacts authorization and cookie headers wherever a request is logged', async () => {
    const logs = await captureLogs();
    const headers = { authorization: `Bearer ${TEST_API_KEY}`, cookie: COOKIE, accept: 'application/json' };
    logs.logger.info({ req: { headers }, headers, request: { headers } }, 'with headers');
    const text = logs.text();
    expect(text).not.toContain(TEST_API_KEY);
    expect(text).not.toContain('cookie-secret');
    const [entry] = logs.entries();
    expect(entry).toMatchObject({ req: { headers: { authorization: '[redacted]', cookie: '[redacted]', accept: 'application/json' } } });
  });

  it('writes nothing at level silent', async () => {
    const lines: string[] = [];
    const { createLogger } = await import('../../src/telemetry/logger.js');
    const logger = await createLogger({ appEnv: 'local', logLevel: 'silent', logFormat: 'json' }, { write: (line) => void lines.push(line) });
    logger.error('hidden');
    expect(lines).toEqual([]);
  });
});

describe('a request that fails unexpectedly', () => {
  let logs: CapturedLogs;
  let failing: Server;
  let baseUrl: string;

  beforeAll(async () => {
    logs = await captureLogs();
    const storage = await openStorage(testConfig(), { logger: logs.logger });
    const container = compose(testConfig(), {
      storage,
      apiKeys: [TEST_API_KEY],
      onUnexpectedError: logUnexpectedError(logs.logger),
      logger: logs.logger,
      isDraining: () => false,
    });
    container.rebind(TOKENS.readiness).toConstantValue({ isReady: () => Promise.reject(new Error('readiness exploded')) });
    failing = container.get(TOKENS.httpApp).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => failing.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => failing.close(() => resolve())));

  it('is logged at error level with the error and its stack, then as a 500 request line', async () => {
    const response = await fetch(`${baseUrl}/readyz`, { headers: { 'X-Request-Id': 'boom-1' } });
    expect(response.status).toBe(500);
    const [error, request] = logs.entries().filter((entry) => entry.requestId === 'boom-1');
    expect(error).toMatchObject({ level: 50, msg: 'unexpected error', method: 'GET', path: '/readyz' });
    expect((error!.err as { message: string }).message).toBe('readiness exploded');
    expect((error!.err as { stack: string }).stack).toMatch(/readiness exploded\n\s+at /);
    expect(request).toMatchObject({ level: 30, msg: 'request', status: 500, route: '/readyz' });
  });
});
