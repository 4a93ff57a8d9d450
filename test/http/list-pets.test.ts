import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';
import { expectError, expectInvalid, expectJsonContentType } from './expect-http.js';

interface WirePet {
  readonly id: bigint;
  readonly name: string;
  readonly categoryId: bigint;
  readonly status?: string;
}

const STATUSES = ['available', 'pending', 'sold', undefined] as const;
const CREATED = 130;

const server = useTestServer();
const empty = useTestServer();
let created: WirePet[];

beforeAll(async () => {
  created = [];
  // Sequential creates, so creation order is also id order.
  for (let i = 0; i < CREATED; i++) {
    const status = STATUSES[i % STATUSES.length];
    const body = status === undefined ? `{"name":"pet-${i}","categoryId":${i}}` : `{"name":"pet-${i}","categoryId":${i},"status":"${status}"}`;
    const response = await server.createPet(body);
    created.push(response.json as WirePet);
  }
});

async function list(query = ''): Promise<WirePet[]> {
  const response = await server.request('GET', `/v1/pets${query}`);
  expect(response.status).toBe(200);
  expectJsonContentType(response);
  expect(Array.isArray(response.json)).toBe(true);
  return response.json as WirePet[];
}

const idsOf = (pets: readonly WirePet[]) => pets.map((pet) => pet.id);

function expectAscending(ids: readonly bigint[]): void {
  for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
}

describe('GET /v1/pets', () => {
  it('answers an empty store with 200 and the text []', async () => {
    const response = await empty.request('GET', '/v1/pets');
    expect(response.status).toBe(200);
    expectJsonContentType(response);
    expect(response.text).toBe('[]');
  });

  it('returns a bare JSON array of the first 20 pets by default', async () => {
    const pets = await list();
    expect(pets).toHaveLength(20);
    expect(idsOf(pets)).toEqual(idsOf(created.slice(0, 20)));
  });

  it('returns pets in ascending id order', async () => {
    const pets = await list('?limit=100');
    expectAscending(idsOf(pets));
  });

  it('returns the stored pets with exactly their fields', async () => {
    const pets = await list('?limit=4');
    expect(pets).toEqual(created.slice(0, 4));
    expect(Object.keys(pets[3]!).sort()).toEqual(['categoryId', 'id', 'name']);
    expect(Object.keys(pets[0]!).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });

  it('returns one pet for limit=1', async () => {
    const pets = await list('?limit=1');
    expect(idsOf(pets)).toEqual([created[0]!.id]);
  });

  it('returns 100 pets for limit=100, the maximum', async () => {
    const pets = await list('?limit=100');
    expect(pets).toHaveLength(100);
    expect(idsOf(pets)).toEqual(idsOf(created.slice(0, 100)));
  });

  it('does not carry the deprecation headers of getPet', async () => {
    const response = await server.request('GET', '/v1/pets');
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('sunset')).toBeNull();
  });
});

describe('GET /v1/pets, status filter', () => {
  it.each(['available', 'pending', 'sold'])('returns only pets with status %s, in ascending id order', async (status) => {
    const pets = await list(`?status=${status}&limit=100`);
    const expected = created.filter((pet) => pet.status === status);
    expect(pets.length).toBeGreaterThan(0);
    expect(pets.every((pet) => pet.status === status)).toBe(true);
    expect(idsOf(pets)).toEqual(idsOf(expected));
    expectAscending(idsOf(pets));
  });

  it('applies limit together with the status filter', async () => {
    const pets = await list('?status=sold&limit=3');
    expect(idsOf(pets)).toEqual(idsOf(created.filter((pet) => pet.status === 'sold').slice(0, 3)));
  });

  it('answers [] for a valid status no pet has', async () => {
    const response = await empty.request('GET', '/v1/pets?status=sold');
    expect(response.status).toBe(200);
    expect(response.text).toBe('[]');
  });

  it.each(['unknown', 'Available', '', 'null'])('answers 400 naming status for status=%s', async (value) => {
    expectInvalid(await server.request('GET', `/v1/pets?status=${value}`), 'status');
  });

  it('answers 400 for a repeated status', async () => {
    expectInvalid(await server.request('GET', '/v1/pets?status=sold&status=pending'), 'status');
  });
});

describe('GET /v1/pets, limit bounds', () => {
  it.each([
    ['0', 'below the minimum'],
    ['101', 'above the maximum'],
    ['-1', 'negative'],
    ['1.5', 'a fraction'],
    ['abc', 'not a number'],
    ['', 'empty'],
    ['1e3', 'an exponent, above the maximum'],
    ['1.01e1', 'a fraction written with an exponent'],
    ['+5', 'a plus sign'],
    ['010', 'a leading zero, which JSON does not write'],
    ['0x10', 'hexadecimal'],
    ['%201', 'padded with a space'],
    ['1000', 'far above the maximum'],
  ])('answers 400 naming limit for limit=%s (%s)', async (value) => {
    expectInvalid(await server.request('GET', `/v1/pets?limit=${value}`), 'limit');
  });

  it.each(['10', '10.0', '1e1', '1.0E1', '100e-1'])('reads limit=%s as 10, an integer as JSON Schema counts them', async (value) => {
    const response = await server.request('GET', `/v1/pets?limit=${value}`);
    expect(response.status).toBe(200);
  });

  it('answers 400 naming limit for a repeated limit', async () => {
    expectInvalid(await server.request('GET', '/v1/pets?limit=1&limit=2'), 'limit');
  });

  it('answers 400 naming the parameter for an unknown query parameter', async () => {
    const response = await server.request('GET', '/v1/pets?offset=20');
    expectError(response, 400, 'validation_failed', /offset/);
  });
});
