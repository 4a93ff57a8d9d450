import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';
import { useTestServer, type TestResponse } from '../support/http-harness.js';
import { rawExchange } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';

const OTHER_KEY = 'second-test-key-abcdefghijklmnopqrstuvwxyz0123';
const DAY = 24 * 3_600_000;

describe('Idempotency-Key on createPet', () => {
  const clock = new FakeClock(Date.UTC(2027, 0, 1));
  const server = useTestServer({ apiKeys: [TEST_API_KEY, OTHER_KEY] }, { clock });
  let sequence = 0;

  const post = (key: string | undefined, body: string, apiKey = TEST_API_KEY): Promise<TestResponse> =>
    server.request('POST', '/v1/pets', {
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${apiKey}`,
        ...(key === undefined ? {} : { 'Idempotency-Key': key }),
      },
      body,
    });

  const uniqueKey = () => `key-${++sequence}-${Math.random().toString(36).slice(2)}`;

  const storedCount = async () => {
    let count = 0;
    let path: string | undefined = '/v1/pets?limit=100';
    while (path !== undefined) {
      const response = await server.request('GET', path);
      count += (response.json as unknown[]).length;
      path = /^<([^>]+)>/.exec(response.headers.get('link') ?? '')?.[1];
    }
    return count;
  };

  it('replays the first response for a retry with the same key and body, marked as a replay', async () => {
    const key = uniqueKey();
    const first = await post(key, '{"name":"Rex","categoryId":9223372036854775807}');
    const before = await storedCount();
    const retry = await post(key, '{ "categoryId": 9223372036854775807, "name": "Rex" }');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await storedCount()).toBe(before);
  });

  it('treats the quoted sf-string form and the bare form as the same key', async () => {
    const key = uniqueKey();
    const first = await post(key, '{"name":"Quoted","categoryId":1}');
    const retry = await post(`"${key}"`, '{"name":"Quoted","categoryId":1}');
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const key = uniqueKey();
    expect((await post(key, '{"name":"One","categoryId":1}')).status).toBe(201);
    const reused = await post(key, '{"name":"Two","categoryId":1}');
    expect(reused.status).toBe(422);
    expect(reused.json).toEqual({ code: 'idempotency_key_reused', message: expect.any(String), status: 422n });
  });

  it('creates exactly one pet for 50 concurrent requests with one key, and answers it to each: once created, 49 times replayed', async () => {
    const key = uniqueKey();
    const before = await storedCount();
    const responses = await Promise.all(Array.from({ length: 50 }, () => post(key, '{"name":"Burst","categoryId":5}')));
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    expect(new Set(responses.map((response) => `${response.headers.get('location')} ${response.text}`)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    expect(await storedCount()).toBe(before + 1);
  });

  it('replays a key with its body at any age, and frees it for another body after its time to live', async () => {
    const key = uniqueKey();
    const first = await post(key, '{"name":"Old","categoryId":1}');
    clock.advance(DAY - 1000);
    expect((await post(key, '{"name":"New","categoryId":1}')).status).toBe(422);
    clock.advance(DAY);
    // Past its time to live the key still names its pet for the body that made it.
    const same = await post(key, '{"name":"Old","categoryId":1}');
    expect(same.status).toBe(201);
    expect(same.text).toBe(first.text);
    expect(same.headers.get('location')).toBe(first.headers.get('location'));
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    const before = await storedCount();
    const other = await post(key, '{"name":"New","categoryId":1}');
    expect(other.status).toBe(201);
    expect(other.json).toMatchObject({ name: 'New' });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    // The key now names the new pet: the old body is refused, the new one replayed.
    expect((await post(key, '{"name":"Old","categoryId":1}')).status).toBe(422);
    expect((await post(key, '{"name":"New","categoryId":1}')).text).toBe(other.text);
    expect(await storedCount()).toBe(before + 1);
  });

  it('scopes keys to the API key', async () => {
    const key = uniqueKey();
    const mine = await post(key, '{"name":"Mine","categoryId":1}');
    const theirs = await post(key, '{"name":"Mine","categoryId":1}', OTHER_KEY);
    expect(theirs.status).toBe(201);
    expect(theirs.text).not.toBe(mine.text);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not store a rejected request, so the key stays usable', async () => {
    const key = uniqueKey();
    expect((await post(key, '{"name":"","categoryId":1}')).status).toBe(400);
    expect((await post(key, '{"name":"Fixed","categoryId":1}')).status).toBe(201);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['an inner quote', '"a"b"'],
    ['a bare token with a space', 'a b'],
    ['two keys joined by a repeated header', 'one, two'],
  ])('answers 400 invalid_idempotency_key for a key that is %s, and stores nothing', async (_, key) => {
    const before = await storedCount();
    const response = await post(key, '{"name":"X","categoryId":1}');
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ code: 'invalid_idempotency_key', message: expect.stringMatching(/^Idempotency-Key must be/), status: 400n });
    expect(await storedCount()).toBe(before);
  });

  it('answers 400 for an Idempotency-Key line with no value at all, as Node parses it', async () => {
    const body = '{"name":"Bare","categoryId":1}';
    const answer = await rawExchange(server.url, [
      'POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${TEST_API_KEY}\r\nIdempotency-Key:\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('"code":"invalid_idempotency_key"');
  });
});

describe('the documented Idempotency-Key schema', () => {
  const server = useTestServer();

  // Keys at the edges of the grammar, and the ones the old document let through though the service refused them.
  const KEYS = [
    'k', 'k'.repeat(255), 'k'.repeat(256), `"${'k'.repeat(255)}"`, `"${'k'.repeat(256)}"`, '"a b"', 'a b', 'café', '"café"',
    '', '""', '"', 'a"b', '"a\\b"', 'a\\b', '~!#$%&\'*+-.^_`|', 'a,b', '"unterminated',
  ];

  it('accepts exactly the keys the service accepts (JSON Schema 2020-12, as generated clients and fuzzers read it)', async () => {
    const document = JSON.parse((await server.request('GET', '/v1/openapi.json', { anonymous: true })).text) as {
      paths: Record<string, { post: { parameters: { name: string; schema: object }[] } }>;
    };
    const parameter = document.paths['/pets']!.post.parameters.find((entry) => entry.name === 'Idempotency-Key')!;
    expect(parameter.schema).toMatchObject({ type: 'string', pattern: expect.any(String), maxLength: 257 });
    const documented = new Ajv2020({ strict: true }).compile(parameter.schema);
    const verdicts = await Promise.all(
      KEYS.map(async (key) => {
        const response = await server.request('POST', '/v1/pets', {
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
          body: '{"name":"Edge","categoryId":1}',
        });
        expect([201, 400]).toContain(response.status);
        return { key, service: response.status === 201, document: documented(key) };
      }),
    );
    expect(verdicts.filter((verdict) => verdict.service !== verdict.document)).toEqual([]);
    expect(verdicts.filter((verdict) => verdict.service).length).toBeGreaterThan(5);
  });
});
