import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';
import { expectError, expectInvalid, idOf } from './expect-http.js';

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';
// Beyond 2^53: JSON.parse would turn it into ...992, so the digits prove exact handling.
const PAST_DOUBLE_PRECISION = '9007199254740993';

const server = useTestServer();

describe('int64 categoryId round trip, compared as raw text', () => {
  it.each([INT64_MAX, INT64_MIN, PAST_DOUBLE_PRECISION])(
    'returns categoryId %s with exactly those digits from create, get and list',
    async (digits) => {
      const created = await server.createPet(`{"name":"Big ${digits}","categoryId":${digits}}`);
      expect(created.status).toBe(201);
      const id = idOf(created);
      const expected = `{"id":${id},"name":"Big ${digits}","categoryId":${digits}}`;
      expect(created.text).toBe(expected);

      const fetched = await server.request('GET', `/v1/pets/${id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.text).toBe(expected);

      const listed = await server.request('GET', '/v1/pets?limit=100');
      expect(listed.status).toBe(200);
      expect(listed.text).toContain(expected);
    },
  );

  it('writes categoryId as a bare JSON number, never a string', async () => {
    const created = await server.createPet(`{"name":"Bare","categoryId":${INT64_MAX}}`);
    expect(created.text).toContain(`"categoryId":${INT64_MAX}}`);
    expect(created.text).not.toContain(`"${INT64_MAX}"`);
    expect((created.json as { categoryId: unknown }).categoryId).toBe(9223372036854775807n);
  });

  it('writes the assigned id as a bare JSON integer', async () => {
    const created = await server.createPet('{"name":"Id","categoryId":1}');
    expect(created.text).toMatch(/^\{"id":\d+,/);
    expect(typeof idOf(created)).toBe('bigint');
  });

  it('rejects one past INT64_MAX and one below INT64_MIN with 400 naming categoryId', async () => {
    expectInvalid(await server.createPet('{"name":"Over","categoryId":9223372036854775808}'), 'categoryId');
    expectInvalid(await server.createPet('{"name":"Under","categoryId":-9223372036854775809}'), 'categoryId');
  });
});

describe('int64 petId in the path', () => {
  it('accepts the extreme int64 values as petIds and answers 404 when absent', async () => {
    expectError(await server.request('GET', `/v1/pets/${INT64_MAX}`), 404, 'pet_not_found', new RegExp(INT64_MAX));
    expectError(await server.request('GET', `/v1/pets/${INT64_MIN}`), 404, 'pet_not_found', new RegExp(INT64_MIN));
  });

  it('rejects petIds just outside int64 with 400 naming petId', async () => {
    expectInvalid(await server.request('GET', '/v1/pets/9223372036854775808'), 'petId');
    expectInvalid(await server.request('GET', '/v1/pets/-9223372036854775809'), 'petId');
  });
});
