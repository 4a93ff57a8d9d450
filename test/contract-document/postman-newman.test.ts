import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { TEST_API_KEY } from '../support/test-config.js';

/*
 * What an outside consumer does: convert the served document with openapi-to-postmanv2, taking values from
 * the examples, set only the two variables the converter creates (`baseUrl`, from the first server, and
 * `bearerToken`, from the bearer scheme), and run the collection with newman against a fresh service. No
 * example request may get a 400, a 401 or a 5xx. With values from schemas (the converter's default) a required
 * int64 is sent as the placeholder "<long>": the documents carry no `default` but limit's, as the interface has none.
 * The converter's default module reads `requestParametersResolution`; `parametersResolution` is read by convertV2.
 */

const require = createRequire(import.meta.url);
type Json = Record<string, any>;

type Convert = (input: { type: 'string'; data: string }, options: Json, callback: (error: unknown, result: Json) => void) => void;
interface Converter {
  convert: Convert;
  convertV2: Convert;
}
interface Newman {
  run(options: Json, callback: (error: unknown, summary: Json) => void): void;
}
const converter = require('openapi-to-postmanv2') as Converter;
const newman = require('newman') as Newman;

const FROM_EXAMPLES = { requestParametersResolution: 'Example' };

async function toCollection(document: string, options: Json, convert: Convert = converter.convert): Promise<Json> {
  const result = await new Promise<Json>((resolve, reject) =>
    convert({ type: 'string', data: document }, options, (error, output) => (error ? reject(error) : resolve(output))),
  );
  expect(result.result, result.reason).toBe(true);
  return result.output[0].data as Json;
}

/** Runs the collection; returns "METHOD path -> status" for every request sent. */
async function runWithNewman(collection: Json, variables: Record<string, string>): Promise<string[]> {
  const summary = await new Promise<Json>((resolve, reject) =>
    newman.run(
      { collection, envVar: Object.entries(variables).map(([key, value]) => ({ key, value })), reporters: [], timeoutRequest: 5000 },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  );
  return (summary.run.executions as Json[]).map((execution) => {
    const { request, response } = execution;
    return `${request.method} ${request.url.getPathWithQuery()} -> ${response?.code ?? 'no response'}`;
  });
}

describe('a Postman collection converted from the served document, run with newman', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it.each([
    ['convert, requestParametersResolution: Example', converter.convert, FROM_EXAMPLES],
    ['convertV2, parametersResolution: Example', converter.convertV2, { parametersResolution: 'Example' }],
  ])('gets no 400, 401 or 5xx with only baseUrl and bearerToken set: %s', async (_name, convert, options) => {
    server = await startTestServer();
    const document = (await server.request('GET', '/v1/openapi.json', { anonymous: true })).text;
    const collection = await toCollection(document, options, convert);
    // The converter's names: baseUrl from servers[0] (here the relative /v1), bearerToken for the bearer scheme.
    expect((collection.variable as Json[]).map((variable) => variable.key)).toEqual(['baseUrl']);
    expect(collection.auth.bearer[0].value).toBe('{{bearerToken}}');

    const results = await runWithNewman(collection, { baseUrl: `${server.url}/v1`, bearerToken: TEST_API_KEY });

    expect(results.length).toBe(4);
    expect(results.filter((line) => !/-> (200|201|404)$/.test(line))).toEqual([]);
    // The optional parameters are sent too, with the sealed cursor of the example status.
    expect(results.find((line) => line.startsWith('GET /v1/pets?'))).toMatch(/limit=20&status=available&cursor=/);
  }, 30_000);

  it('the operations document: every request at the origin succeeds', async () => {
    server = await startTestServer();
    const document = (await server.request('GET', '/openapi-operations.json', { anonymous: true })).text;
    const collection = await toCollection(document, FROM_EXAMPLES);
    expect((collection.variable as Json[]).map((variable) => variable.key)).toEqual(['baseUrl']);

    const results = await runWithNewman(collection, { baseUrl: server.url });

    expect(results.map((line) => line.replace(/ -> \d+$/, ''))).toEqual(
      expect.arrayContaining(['GET /healthz', 'GET /readyz', 'GET /docs', 'GET /docs/assets/swagger-ui.css', 'GET /metrics']),
    );
    expect(results.filter((line) => !/-> 200$/.test(line))).toEqual([]);
  }, 30_000);
});
