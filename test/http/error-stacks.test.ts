import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';

// With --enable-source-maps (npm start), formatting a stack maps every frame: only errors that get logged may pay that.
describe('ordinary error answers', () => {
  const server = useTestServer();
  let formatted: Error[];
  let original: typeof Error.prepareStackTrace;

  // V8 formats a stack lazily, the first time .stack is read, through Error.prepareStackTrace when it is set.
  beforeEach(() => {
    formatted = [];
    original = Error.prepareStackTrace;
    Error.prepareStackTrace = (error, frames) => {
      formatted.push(error);
      return original === undefined ? `${String(error)}\n    at ${frames.join('\n    at ')}` : original(error, frames);
    };
  });
  afterEach(() => {
    Error.prepareStackTrace = original;
  });

  const json = { 'Content-Type': 'application/json' };

  it('never format an error stack on the way to a 4xx', async () => {
    const answers = [
      await server.request('POST', '/v1/pets', { headers: json, body: '{"name":"Rex"}' }),
      await server.request('POST', '/v1/pets', { headers: json, body: '{"name":' }),
      await server.request('POST', '/v1/pets', { headers: { 'Content-Type': 'text/plain' }, body: 'Rex' }),
      await server.request('GET', '/v1/pets/9000000000000000000'),
      await server.request('GET', '/v1/pets/not-an-id'),
      await server.request('GET', '/v1/pets?cursor=%%%'),
      await server.request('GET', '/v1/pets', { anonymous: true }),
      await server.request('GET', '/v1/pets', { headers: { Authorization: 'Bearer not-a-known-key-0000' } }),
      await server.request('DELETE', '/v1/pets'),
      await server.request('GET', '/nowhere'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 415, 404, 400, 400, 401, 401, 405, 404]);
    expect(formatted.map((error) => error.message)).toEqual([]);
  });

  it('can see a stack being formatted', () => {
    expect(new Error('read').stack).toContain('read');
    expect(formatted).toHaveLength(1);
  });
});
