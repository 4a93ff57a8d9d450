import { beforeAll, describe, expect, it } from 'vitest';
import { type TestResponse, useTestServer } from '../support/http-harness.js';
import { expectError, expectInvalid, expectJsonContentType, idOf } from './expect-http.js';

const server = useTestServer();
let petId: bigint;
let petText: string;

beforeAll(async () => {
  const created = await server.createPet('{"name":"Rex","categoryId":7,"status":"sold"}');
  petId = idOf(created);
  petText = created.text;
});

/** RFC 9745 Deprecation (@epoch seconds), RFC 8594 Sunset and the successor Link. */
function expectDeprecationHeaders(response: TestResponse): void {
  expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
  const deprecatedAt = Number(response.headers.get('deprecation')!.slice(1)) * 1000;
  expect(deprecatedAt).toBeLessThan(Date.UTC(2030, 11, 5));
  expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  const link = response.headers.get('link');
  expect(link).toMatch(/<[^>]*\/v1\/pets>\s*;\s*rel="successor-version"/);
}

describe('GET /v1/pets/{petId}', () => {
  it('answers 200 with exactly the stored Pet', async () => {
    const response = await server.request('GET', `/v1/pets/${petId}`);
    expect(response.status).toBe(200);
    expectJsonContentType(response);
    expect(response.text).toBe(petText);
    expect(response.json).toEqual({ id: petId, name: 'Rex', categoryId: 7n, status: 'sold' });
  });

  it('answers 404 pet_not_found for an absent id, naming it', async () => {
    const response = await server.request('GET', '/v1/pets/987654321');
    expectError(response, 404, 'pet_not_found', /987654321/);
  });

  it('answers 404 for the ids 0 and a negative id, which are int64 but never assigned', async () => {
    expectError(await server.request('GET', '/v1/pets/0'), 404, 'pet_not_found');
    expectError(await server.request('GET', '/v1/pets/-1'), 404, 'pet_not_found');
  });

  it.each(['abc', '1.5', '1e3', '0x10', '9223372036854775808', '-9223372036854775809', '%201'])(
    'answers 400 naming petId for the petId %s, not an int64',
    async (value) => {
      expectInvalid(await server.request('GET', `/v1/pets/${value}`), 'petId');
    },
  );
});

describe('GET /v1/pets/{petId} deprecation', () => {
  it('marks a 200 response as deprecated with its sunset and successor', async () => {
    const response = await server.request('GET', `/v1/pets/${petId}`);
    expect(response.status).toBe(200);
    expectDeprecationHeaders(response);
  });

  it('marks a 404 response as deprecated', async () => {
    const response = await server.request('GET', '/v1/pets/987654321');
    expect(response.status).toBe(404);
    expectDeprecationHeaders(response);
  });

  it('marks a 400 response as deprecated', async () => {
    const response = await server.request('GET', '/v1/pets/abc');
    expect(response.status).toBe(400);
    expectDeprecationHeaders(response);
  });

  it('marks a 401 response as deprecated', async () => {
    const response = await server.request('GET', `/v1/pets/${petId}`, { anonymous: true });
    expectError(response, 401, 'missing_api_key');
    expectDeprecationHeaders(response);
  });

  it('does not mark createPet responses as deprecated', async () => {
    const response = await server.createPet('{"name":"Fresh","categoryId":1}');
    expect(response.status).toBe(201);
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('sunset')).toBeNull();
    expect(response.headers.get('link')).toBeNull();
  });
});
