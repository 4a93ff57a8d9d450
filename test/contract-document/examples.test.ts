import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../src/adapters/http/cursor.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';

type Json = Record<string, any>;

/** Every object in the document that has a schema, with its JSON pointer. */
function* withSchemas(node: unknown, pointer = ''): Generator<[string, Json]> {
  if (typeof node !== 'object' || node === null) return;
  if ('schema' in node && typeof (node as Json).schema === 'object') yield [pointer, node as Json];
  for (const [key, child] of Object.entries(node)) yield* withSchemas(child, `${pointer}/${key}`);
}

/** Every parameter, request body, response and header of every operation: where an example must be. */
function* exampleSites(doc: Json): Generator<[string, Json]> {
  const resolve = (value: Json): Json =>
    typeof value.$ref === 'string' ? resolve((value.$ref as string).slice(2).split('/').reduce((n: Json, k) => n[k], doc)) : value;
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const parameter of operation.parameters ?? []) yield [`${where} parameter ${parameter.name}`, resolve(parameter)];
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) yield [`${where} body ${type}`, media as Json];
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const resolved = resolve(response as Json);
        for (const [type, media] of Object.entries(resolved.content ?? {})) {
          if ((media as Json).schema !== undefined) yield [`${where} ${status} ${type}`, media as Json];
        }
        for (const [name, header] of Object.entries(resolved.headers ?? {})) yield [`${where} ${status} header ${name}`, resolve(header as Json)];
      }
    }
  }
}

describe('the examples of the served documents', () => {
  let server: TestServer;
  const docs: Record<string, Json> = {};

  beforeAll(async () => {
    server = await startTestServer();
    for (const url of ['/v1/openapi.json', '/openapi-operations.json']) docs[url] = JSON.parse((await server.request('GET', url)).text) as Json;
  });
  afterAll(() => server.stop());

  it.each(['/v1/openapi.json', '/openapi-operations.json'])('%s: every parameter, body, response and header has an example', (url) => {
    const missing = [...exampleSites(docs[url]!)].filter(([, site]) => site.example === undefined).map(([where]) => where);
    expect(missing).toEqual([]);
  });

  it.each(['/v1/openapi.json', '/openapi-operations.json'])('%s: every example and every default is valid against its schema', (url) => {
    const doc = docs[url]!;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addFormat('int64', true);
    ajv.addSchema(doc, 'doc');
    const anchored = (schema: Json) => JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"doc#/')) as Json;
    const problems: string[] = [];
    let checked = 0;
    for (const [pointer, site] of withSchemas(doc)) {
      const validate = ajv.compile(anchored(site.schema as Json));
      for (const [kind, value] of [['example', site.example], ['default', site.schema.default]] as const) {
        if (value === undefined) continue;
        checked++;
        if (!validate(value)) problems.push(`${pointer} ${kind} ${JSON.stringify(value)}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('gives a cursor example the service issues for the example status, and the example requests succeed', async () => {
    const listPets = docs['/v1/openapi.json']!.paths['/pets'].get;
    const example = (name: string) => listPets.parameters.find((p: Json) => p.name === name).example;
    expect(example('cursor')).toBe(encodeCursor(1n, example('status')));
    const created = await server.createPet(JSON.stringify(docs['/v1/openapi.json']!.paths['/pets'].post.requestBody.content['application/json'].example));
    expect(created.status).toBe(201);
    const query = `limit=${example('limit')}&status=${example('status')}&cursor=${example('cursor')}`;
    expect((await server.request('GET', `/v1/pets?${query}`)).status).toBe(200);
  });
});
