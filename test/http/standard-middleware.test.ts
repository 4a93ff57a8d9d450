import etag from '@koa/etag';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import compress from 'koa-compress';
import conditional from 'koa-conditional-get';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';
import { TEST_API_KEY } from '../support/test-config.js';

/*
 * Standard Koa middleware mounted where a team adds its own (createHttpApp's `middleware`): every JSON route
 * must answer through Koa's respond, so that each of them sees and changes the response as documented.
 */

interface Seen {
  readonly path: string;
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
}

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly bytes: Buffer;
}

// Raw requests, not the harness's: its check against the served document would refuse the headers these add.
function raw(url: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const options = { method: body === undefined ? 'GET' : 'POST', headers: { Authorization: `Bearer ${TEST_API_KEY}`, ...headers } };
    const req = httpRequest(`${url}${path}`, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('standard Koa middleware mounted in the documented place', () => {
  const seen: Seen[] = [];
  // A plain logging middleware: what it reads after `await next()` is the response Koa is about to send.
  const observe: Middleware = async (ctx: Context, next: Next) => {
    await next();
    seen.push({ path: ctx.path, status: ctx.status, type: ctx.type, body: ctx.body });
  };
  const throwing: Middleware = (ctx: Context, next: Next) => {
    if (ctx.get('X-Test-Throw') === '400') ctx.throw(400, 'Refused by a test middleware.');
    if (ctx.get('X-Test-Throw') === '503') ctx.throw(503, 'Internal detail that must not leak.');
    if (ctx.get('X-Test-Throw') === 'plain') throw new Error('an unexpected failure');
    return next();
  };
  let logs: CapturedLogs;
  let server: TestServer;
  let petPath: string;

  beforeAll(async () => {
    logs = await captureLogs();
    server = await startTestServer(
      {},
      { logger: logs.logger, middleware: [compress({ threshold: 0 }), conditional(), etag(), observe, throwing] },
    );
    const create = (json: string) => raw(server.url, '/v1/pets', { 'Content-Type': 'application/json', 'Accept-Encoding': 'identity' }, json);
    for (let n = 0; n < 3; n++) expect((await create(`{"name":"Pet ${n}","categoryId":${n},"status":"available"}`)).status).toBe(201);
    const rex = await create('{"name":"Rex","categoryId":7}');
    petPath = rex.headers.location!;
    expect(petPath).toMatch(/^\/v1\/pets\/\d+$/);
  });
  afterAll(() => server.stop());

  for (const [name, path] of [
    ['a list', () => '/v1/pets?limit=2'],
    ['a pet', () => petPath],
  ] as const) {
    it(`compresses ${name} with gzip, to the same JSON as uncompressed`, async () => {
      const plain = await raw(server.url, path(), { 'Accept-Encoding': 'identity' });
      const gzipped = await raw(server.url, path(), { 'Accept-Encoding': 'gzip' });
      expect(plain.status).toBe(200);
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(gunzipSync(gzipped.bytes).toString('utf8')).toBe(plain.bytes.toString('utf8'));
      expect(JSON.parse(plain.bytes.toString('utf8'))).toBeTruthy();
    });

    it(`gives ${name} an ETag and answers 304 to If-None-Match`, async () => {
      const first = await raw(server.url, path());
      const tag = first.headers.etag;
      expect(tag).toMatch(/^(W\/)?"[^"]+"$/);
      const again = await raw(server.url, path(), { 'If-None-Match': tag! });
      expect(again.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.headers['x-request-id']).toBeTruthy();
      const changed = await raw(server.url, path(), { 'If-None-Match': '"not-this-one"' });
      expect(changed.status).toBe(200);
      expect(changed.bytes.toString('utf8')).toBe(first.bytes.toString('utf8'));
    });

    it(`shows ${name}'s status, type and body to a middleware after await next()`, async () => {
      const response = await raw(server.url, path(), { 'Accept-Encoding': 'identity', 'X-Request-Id': `seen-${name.replace(' ', '-')}` });
      const entry = seen.findLast((candidate) => candidate.path === path().split('?')[0]);
      expect(entry).toMatchObject({ status: 200, type: 'application/json' });
      expect(Buffer.isBuffer(entry!.body) || typeof entry!.body === 'string').toBe(true);
      expect(String(entry!.body)).toBe(response.bytes.toString('utf8'));
    });
  }

  it('renders ctx.throw(400) as a 400 Error body with its message', async () => {
    const response = await raw(server.url, '/v1/pets', { 'X-Test-Throw': '400', 'Accept-Encoding': 'identity' });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.bytes.toString('utf8'))).toEqual({ code: 'bad_request', message: 'Refused by a test middleware.', status: 400 });
  });

  it('keeps a 5xx http error’s own status but not its message', async () => {
    const response = await raw(server.url, '/v1/pets', { 'X-Test-Throw': '503', 'Accept-Encoding': 'identity' });
    expect(response.status).toBe(503);
    expect(JSON.parse(response.bytes.toString('utf8'))).toEqual({ code: 'service_unavailable', message: 'Service Unavailable.', status: 503 });
  });

  it('answers any other error 500 internal_error and reports it once on the app’s error event', async () => {
    const response = await raw(server.url, '/v1/pets', { 'X-Test-Throw': 'plain', 'X-Request-Id': 'plain-error-1', 'Accept-Encoding': 'identity' });
    expect(response.status).toBe(500);
    expect(JSON.parse(response.bytes.toString('utf8'))).toEqual({ code: 'internal_error', message: 'An unexpected error occurred.', status: 500 });
    expect(response.bytes.toString('utf8')).not.toContain('an unexpected failure');
    const reported = logs.entries().filter((entry) => entry.msg === 'unexpected error' && entry.requestId === 'plain-error-1');
    expect(reported).toHaveLength(1);
    expect((reported[0]!.err as { message: string }).message).toBe('an unexpected failure');
  });
});
