import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../../src/adapters/http/create-http-app.js';
import { HttpMetrics } from '../../src/adapters/http/http-metrics.js';
import { ERROR_CODES } from '../../src/adapters/http/wire-schemas.js';
import { OpenApiConformance, serverPrefix } from '../support/openapi-conformance.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { testConfig } from '../support/test-config.js';

type Json = Record<string, any>;

/** Every `default` keyword under node, as [JSON pointer, value]. */
function defaultsIn(node: unknown, pointer: string): [string, unknown][] {
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    return key === 'default' && !Array.isArray(node) ? [[at, value] as [string, unknown]] : defaultsIn(value, at);
  });
}

describe('the served OpenAPI document', () => {
  let server: TestServer;
  let doc: Json;
  let operationsDoc: Json;
  let text: string;

  beforeAll(async () => {
    server = await startTestServer();
    const response = await server.request('GET', '/v1/openapi.json', { anonymous: true });
    expect(response.status).toBe(200);
    text = response.text;
    doc = JSON.parse(text) as Json;
    operationsDoc = JSON.parse((await server.request('GET', '/openapi-operations.json', { anonymous: true })).text) as Json;
  });
  afterAll(() => server.stop());

  it('is OpenAPI 3.1 for interface version 1.0.0, served without a key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('lists the serving service (relative /v1) first, then production and staging from config', () => {
    const { servers } = testConfig();
    expect(doc.servers.map((entry: Json) => entry.url)).toEqual(['/v1', servers.production, servers.staging]);
    expect(operationsDoc.servers.map((entry: Json) => entry.url)).toEqual([
      '/',
      new URL(servers.production).origin,
      new URL(servers.staging).origin,
    ]);
  });

  it('names no per-path servers, which generated clients and Postman ignore', () => {
    for (const document of [doc, operationsDoc]) {
      for (const item of Object.values(document.paths as Json)) expect(item.servers).toBeUndefined();
    }
  });

  it('writes the int64 bounds with every digit', () => {
    expect(text).toContain('"minimum": -9223372036854775808');
    expect(text).toContain('"maximum": 9223372036854775807');
  });

  it('limits Error.status to 100..599 and counts name length in code points', () => {
    expect(doc.components.schemas.Error.properties.status).toMatchObject({ type: 'integer', minimum: 100, maximum: 599 });
    expect(doc.components.schemas.NewPet.properties.name).toMatchObject({ minLength: 1, maxLength: 255 });
  });

  it('tells clients to retry a create after a 503 only with an Idempotency-Key', () => {
    expect(doc.paths['/pets'].post.responses['503'].description).toMatch(/only with an `Idempotency-Key`/);
  });

  it('describes the three operations with their ids, the animals tag and bearer security', () => {
    const operations = [doc.paths['/pets'].get, doc.paths['/pets'].post, doc.paths['/pets/{petId}'].get];
    expect(operations.map((operation: Json) => operation.operationId)).toEqual(['listPets', 'createPet', 'getPet']);
    for (const operation of operations) {
      expect(operation.tags).toEqual(['animals']);
      expect(operation.security).toBeUndefined();
      for (const status of ['401', '500']) expect(operation.responses[status], `${operation.operationId} ${status}`).toBeDefined();
    }
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents the 4xx responses each operation can give', () => {
    expect(Object.keys(doc.paths['/pets'].get.responses)).toEqual(expect.arrayContaining(['200', '400', '401']));
    expect(Object.keys(doc.paths['/pets'].post.responses)).toEqual(
      expect.arrayContaining(['201', '400', '401', '413', '415']),
    );
    expect(Object.keys(doc.paths['/pets/{petId}'].get.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '410']),
    );
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
  });

  it('marks getPet deprecated with its removal date and successor', () => {
    const getPet = doc.paths['/pets/{petId}'].get;
    expect(getPet.deprecated).toBe(true);
    expect(getPet['x-sunset']).toBe('2030-12-05');
    expect(getPet.description).toContain('2030-12-05');
    expect(getPet.description).toContain('GET /pets');
    expect(Object.keys(getPet.responses['200'].headers)).toEqual(
      expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
    );
  });

  it('types int64 values as integer/int64 and never writes a rounded int64 bound', () => {
    const pet = doc.components.schemas.Pet;
    expect(pet.properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(pet.properties.categoryId).toMatchObject({ type: 'integer', format: 'int64' });
    expect(pet.required).toEqual(expect.arrayContaining(['id', 'name', 'categoryId']));
    expect(text).not.toContain('9223372036854776000');
  });

  it('enumerates the error codes, each listed in docs/operations.md', () => {
    expect(doc.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
    const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    for (const code of ERROR_CODES) expect(page, code).toContain(`\`${code}\``);
  });

  it('carries a default only for the list limit (20), the one default the interface has', () => {
    const defaults = [...defaultsIn(doc, '#'), ...defaultsIn(operationsDoc, 'operations#')];
    const limit = (doc.paths['/pets'].get.parameters as Json[]).findIndex((parameter) => parameter.name === 'limit');
    expect(defaults).toEqual([[`#/paths/~1pets/get/parameters/${limit}/schema/default`, 20]]);
  });

  it("introduces the API to a consumer: key, first request, pagination, retries, errors and exact int64", () => {
    const intro = doc.info.description as string;
    for (const topic of ['Authorization: Bearer', 'curl ', 'rel="next"', 'Idempotency-Key', '"code"', 'bigint', 'openapi-typescript', 'openapi-generator', 'orval', 'Postman']) {
      expect(intro, topic).toContain(topic);
    }
    // A local instance (the test servers') names its own address; test/http/docs.test.ts covers the others.
    expect(intro).toContain(`'${server.url}/v1/pets?limit=5'`);
    const named = [...intro.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(5);
    expect(ERROR_CODES).toEqual(expect.arrayContaining(named));
  });

  it('states validator edge cases on the schemas they concern, not in the introduction', () => {
    expect(doc.info.description).not.toContain('2048');
    const categoryId = doc.components.schemas.NewPet.properties.categoryId.description;
    expect(categoryId).toContain('within 2048 of the int64 bounds');
    expect(categoryId).toContain('`1.00000000000000001` is 400');
    expect(doc.components.schemas.Pet.properties.id.description).toContain('within 2048 of the int64 bounds');
  });

  it('marks the cursor parameter beta, as an addition beyond v1.0.0', () => {
    const cursor = doc.paths['/pets'].get.parameters.find((parameter: Json) => parameter.name === 'cursor');
    expect(cursor['x-stability']).toBe('beta');
  });

  it('describes exactly the routes the service answers, between the two documents', () => {
    // The test server serves /metrics on the API port, as the default config does.
    const deps = {
      servers: testConfig().servers,
      metrics: new HttpMetrics(async () => 0),
      metricsOnApiPort: true,
    } as Parameters<typeof allRoutes>[0];
    const served = allRoutes(deps)
      .flatMap((router) => router.stack)
      .flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${layer.path}`))
      .sort();
    const documented = [doc, operationsDoc]
      .flatMap((document) => Object.entries(document.paths as Json).map(([path, item]) => [serverPrefix(document, item), path, item] as const))
      .flatMap(([prefix, path, item]) => {
        const routerPath = `${prefix}${path}`.replace(/\{(\w+)\}/g, ':$1');
        return Object.keys(item)
          .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
          .map((method) => `${method.toUpperCase()} ${routerPath}`);
      })
      .sort();
    expect(documented).toEqual(served);
  });
});

describe('OpenApiConformance', () => {
  let conformance: OpenApiConformance;
  const headers = (entries: Record<string, string>) => new Headers(entries);

  beforeAll(async () => {
    const server = await startTestServer();
    const served = async (path: string) => JSON.parse((await server.request('GET', path)).text) as Json;
    conformance = new OpenApiConformance(await served('/v1/openapi.json'), await served('/openapi-operations.json'));
    await server.stop();
  });

  it('accepts a documented response', () => {
    const ok = { status: 200, headers: headers({ 'content-type': 'application/json' }), text: '[{"id":1,"name":"a","categoryId":2}]' };
    expect(() => conformance.check('GET', '/v1/pets', ok)).not.toThrow();
  });

  it('rejects an undocumented status', () => {
    const teapot = { status: 418, headers: headers({ 'content-type': 'application/json' }), text: '{}' };
    expect(() => conformance.check('GET', '/v1/pets', teapot)).toThrowError(/status not documented/);
  });

  it('rejects a body that breaks the schema', () => {
    const noName = { status: 200, headers: headers({ 'content-type': 'application/json' }), text: '[{"id":1,"categoryId":2}]' };
    expect(() => conformance.check('GET', '/v1/pets', noName)).toThrowError(/does not match schema/);
    const badCode = { status: 400, headers: headers({ 'content-type': 'application/json' }), text: '{"code":"oops","message":"m","status":400}' };
    expect(() => conformance.check('GET', '/v1/pets', badCode)).toThrowError(/does not match schema/);
  });

  it('rejects any undeclared header, and accepts the transport headers', () => {
    const custom = { status: 200, headers: headers({ 'content-type': 'application/json', 'x-powered-by': 'Koa' }), text: '[]' };
    expect(() => conformance.check('GET', '/v1/pets', custom)).toThrowError(/header x-powered-by not documented/);
    const transport = { status: 200, headers: headers({ 'content-type': 'application/json', date: 'x', connection: 'close', 'content-length': '2' }), text: '[]' };
    expect(() => conformance.check('GET', '/v1/pets', transport)).not.toThrow();
  });

  it('checks the operational endpoints against the operations document', () => {
    const ok = { status: 200, headers: headers({ 'content-type': 'application/json' }), text: '{"status":"ok"}' };
    expect(() => conformance.check('GET', '/healthz', ok)).not.toThrow();
    const bad = { status: 200, headers: headers({ 'content-type': 'application/json' }), text: '{"status":"fine"}' };
    expect(() => conformance.check('GET', '/healthz', bad)).toThrowError(/does not match schema/);
  });

  it('rejects an undocumented contract header and an undocumented media type', () => {
    const withSunset = { status: 200, headers: headers({ 'content-type': 'application/json', sunset: 'x' }), text: '[]' };
    expect(() => conformance.check('GET', '/v1/pets', withSunset)).toThrowError(/header sunset not documented/);
    const text = { status: 200, headers: headers({ 'content-type': 'text/plain' }), text: 'hi' };
    expect(() => conformance.check('GET', '/v1/pets', text)).toThrowError(/content type text\/plain not documented/);
  });
});
