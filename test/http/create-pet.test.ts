import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';
import { expectError, expectInvalid, expectJsonContentType, idOf } from './expect-http.js';

const server = useTestServer();

describe('POST /v1/pets, accepted bodies', () => {
  it('answers 201 with the created Pet, its assigned id and a Location header', async () => {
    const response = await server.createPet('{"name":"Rex","categoryId":7,"status":"available"}');
    expect(response.status).toBe(201);
    expectJsonContentType(response);
    const id = idOf(response);
    expect(response.text).toBe(`{"id":${id},"name":"Rex","categoryId":7,"status":"available"}`);
    expect(response.headers.get('location')).toBe(`/v1/pets/${id}`);
  });

  it('stores the pet so that the Location answers it', async () => {
    const created = await server.createPet('{"name":"Tom","categoryId":3,"status":"pending"}');
    const fetched = await server.request('GET', created.headers.get('location')!);
    expect(fetched.status).toBe(200);
    expect(fetched.text).toBe(created.text);
  });

  it.each(['available', 'pending', 'sold'])('accepts the status %s', async (status) => {
    const response = await server.createPet(`{"name":"Any","categoryId":1,"status":"${status}"}`);
    expect(response.status).toBe(201);
    expect((response.json as { status: string }).status).toBe(status);
  });

  it('omits the status key entirely when no status is sent', async () => {
    const response = await server.createPet('{"name":"Plain","categoryId":2}');
    expect(response.status).toBe(201);
    expect(Object.keys(response.json as object).sort()).toEqual(['categoryId', 'id', 'name']);
    expect(response.text).not.toContain('status');
    const fetched = await server.request('GET', `/v1/pets/${idOf(response)}`);
    expect(Object.keys(fetched.json as object).sort()).toEqual(['categoryId', 'id', 'name']);
  });

  it('ignores a client-sent id and assigns its own', async () => {
    const response = await server.createPet('{"id":9223372036854775807,"name":"Forged","categoryId":1}');
    expect(response.status).toBe(201);
    const id = idOf(response);
    expect(id).not.toBe(9223372036854775807n);
    expect(response.headers.get('location')).toBe(`/v1/pets/${id}`);
    const forged = await server.request('GET', '/v1/pets/9223372036854775807');
    expectError(forged, 404, 'pet_not_found');
  });

  it('drops unknown members of the body instead of storing or echoing them', async () => {
    const response = await server.createPet('{"name":"Extra","categoryId":1,"color":"red","__proto__":{"admin":true}}');
    expect(response.status).toBe(201);
    expect(Object.keys(response.json as object).sort()).toEqual(['categoryId', 'id', 'name']);
    const fetched = await server.request('GET', `/v1/pets/${idOf(response)}`);
    expect(fetched.text).not.toMatch(/color|admin/);
  });

  it('assigns ascending ids to successive creates', async () => {
    const first = idOf(await server.createPet('{"name":"A","categoryId":1}'));
    const second = idOf(await server.createPet('{"name":"B","categoryId":1}'));
    expect(second).toBeGreaterThan(first);
  });

  it('accepts a name of exactly 255 characters and returns it unchanged', async () => {
    const name = 'n'.repeat(255);
    const response = await server.createPet(`{"name":"${name}","categoryId":1}`);
    expect(response.status).toBe(201);
    expect((response.json as { name: string }).name).toBe(name);
  });

  it('accepts a name of one character', async () => {
    const response = await server.createPet('{"name":"x","categoryId":1}');
    expect(response.status).toBe(201);
    expect((response.json as { name: string }).name).toBe('x');
  });

  it('keeps a name with JSON escapes and non-ASCII characters exactly', async () => {
    const name = 'Mötley "Crüe" \\ 🐕';
    const response = await server.createPet(JSON.stringify({ name, categoryId: 1 }));
    expect(response.status).toBe(201);
    expect(JSON.parse(response.text).name).toBe(name);
  });

  it('accepts categoryId 0 and negative categoryIds within int64', async () => {
    const zero = await server.createPet('{"name":"Z","categoryId":0}');
    const negative = await server.createPet('{"name":"N","categoryId":-42}');
    expect(zero.status).toBe(201);
    expect(zero.text).toContain('"categoryId":0');
    expect(negative.status).toBe(201);
    expect(negative.text).toContain('"categoryId":-42');
  });
});

describe('POST /v1/pets, missing or non-object bodies', () => {
  it('answers 400 naming the body when no body is sent', async () => {
    const response = await server.request('POST', '/v1/pets', { headers: { 'Content-Type': 'application/json' } });
    expectInvalid(response, 'body');
  });

  it('answers 400 naming the body when the body is empty', async () => {
    expectInvalid(await server.createPet(''), 'body');
  });

  it('answers 400 naming the body when the body is only whitespace', async () => {
    expectInvalid(await server.createPet('  \n '), 'body');
  });

  it.each(['[]', '"x"', '5', 'null', 'true', '[{"name":"Rex","categoryId":1}]'])(
    'answers 400 naming the body for the non-object body %s',
    async (body) => {
      expectInvalid(await server.createPet(body), 'body');
    },
  );

  it('answers 400 naming name for an empty object', async () => {
    expectInvalid(await server.createPet('{}'), 'name');
  });
});

describe('POST /v1/pets, field rules', () => {
  it('answers 400 naming name when name is missing', async () => {
    expectInvalid(await server.createPet('{"categoryId":1}'), 'name');
  });

  it('answers 400 naming categoryId when categoryId is missing', async () => {
    expectInvalid(await server.createPet('{"name":"Rex"}'), 'categoryId');
  });

  it.each(['5', 'null', 'true', '[]', '{}', '["Rex"]'])('answers 400 naming name for name %s', async (value) => {
    expectInvalid(await server.createPet(`{"name":${value},"categoryId":1}`), 'name');
  });

  it.each([
    ['"5"', 'a numeric string'],
    ['1.5', 'a fraction'],
    ['1.00000000000000001', 'a fraction below double precision'],
    ['1e-1', 'a negative exponent'],
    ['null', 'null'],
    ['true', 'a boolean'],
    ['[1]', 'an array'],
    ['{}', 'an object'],
  ])('answers 400 naming categoryId for %s (%s), without coercion', async (value) => {
    expectInvalid(await server.createPet(`{"name":"Rex","categoryId":${value}}`), 'categoryId');
  });

  it.each([
    ['1.0', 1n],
    ['1e3', 1000n],
    ['1.5e1', 15n],
    ['-2.0E2', -200n],
    ['9223372036854775807.0', 9223372036854775807n],
    ['9.223372036854775807e18', 9223372036854775807n],
  ])('accepts categoryId %s, an integer as JSON Schema counts them, as exactly %s', async (value, expected) => {
    const response = await server.createPet(`{"name":"Rex","categoryId":${value}}`);
    expect(response.status).toBe(201);
    expect(response.text).toContain(`"categoryId":${expected}`);
  });

  it('counts the name in code points, as JSON Schema does: 255 emoji pass, 256 do not', async () => {
    expect((await server.createPet(JSON.stringify({ name: '🐕'.repeat(255), categoryId: 1 }))).status).toBe(201);
    expectInvalid(await server.createPet(JSON.stringify({ name: '🐕'.repeat(256), categoryId: 1 })), 'name');
  });

  it.each(['9223372036854775808', '-9223372036854775809', '100000000000000000000', '9.3e18', '1e400'])(
    'answers 400 naming categoryId for %s, outside int64',
    async (value) => {
      expectInvalid(await server.createPet(`{"name":"Rex","categoryId":${value}}`), 'categoryId');
    },
  );

  it.each(['null', '"unknown"', '"Available"', '""', '5', '["available"]'])(
    'answers 400 naming status for status %s',
    async (value) => {
      expectInvalid(await server.createPet(`{"name":"Rex","categoryId":1,"status":${value}}`), 'status');
    },
  );

  it.each([
    ['""', 'empty'],
    ['"   "', 'blank'],
    ['"\\t\\n"', 'whitespace only'],
    [`"${'n'.repeat(256)}"`, '256 characters long'],
  ])('answers 400 naming name for a name that is %s (%s)', async (value) => {
    expectInvalid(await server.createPet(`{"name":${value},"categoryId":1}`), 'name');
  });

  it('stores nothing when a create is rejected', async () => {
    const before = await server.request('GET', '/v1/pets?limit=100');
    await server.createPet('{"name":"Ghost","categoryId":"5"}');
    const after = await server.request('GET', '/v1/pets?limit=100');
    expect(after.text).toBe(before.text);
    expect(after.text).not.toContain('Ghost');
  });
});
