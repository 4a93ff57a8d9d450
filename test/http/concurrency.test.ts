import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';

interface WirePet {
  readonly id: bigint;
  readonly name: string;
  readonly status?: string;
}

const CREATES = 200;
const STATUSES = ['available', 'pending', 'sold'] as const;

const server = useTestServer();

describe('concurrent creates', () => {
  it('gives 200 simultaneous creates 200 distinct ids and stores all 200', async () => {
    // Statuses split the pets in three groups of at most 67, so each fits one page of limit=100.
    const responses = await Promise.all(
      Array.from({ length: CREATES }, (_, i) =>
        server.createPet(`{"name":"pet-${i}","categoryId":${i},"status":"${STATUSES[i % STATUSES.length]}"}`),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(CREATES).fill(201));
    const created = responses.map((r) => r.json as WirePet);
    const ids = new Set(created.map((pet) => pet.id));
    expect(ids.size).toBe(CREATES);
    expect(new Set(responses.map((r) => r.headers.get('location'))).size).toBe(CREATES);
    const sortedIds = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

    // Unfiltered, one page shows the 100 lowest ids in ascending order.
    const firstPage = await server.request('GET', '/v1/pets?limit=100');
    expect((firstPage.json as WirePet[]).map((pet) => pet.id)).toEqual(sortedIds.slice(0, 100));

    // Filtered by status, the three pages together show every stored pet exactly once.
    const listed: WirePet[] = [];
    for (const status of STATUSES) {
      const page = await server.request('GET', `/v1/pets?status=${status}&limit=100`);
      expect(page.status).toBe(200);
      const pets = page.json as WirePet[];
      expect(pets.length).toBeLessThan(100);
      expect(pets.every((pet) => pet.status === status)).toBe(true);
      listed.push(...pets);
    }
    const listedIds = listed.map((pet) => pet.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(listedIds).toEqual(sortedIds);
    const names = new Map(created.map((pet) => [pet.id, pet.name]));
    expect(listed.every((pet) => names.get(pet.id) === pet.name)).toBe(true);
  });

  it('answers a getPet for every concurrently created id', async () => {
    const page = await server.request('GET', '/v1/pets?limit=100');
    const ids = (page.json as WirePet[]).map((pet) => pet.id);
    expect(ids).toHaveLength(100);
    const fetched = await Promise.all(ids.map((id) => server.request('GET', `/v1/pets/${id}`)));
    expect(fetched.map((r) => r.status)).toEqual(Array(ids.length).fill(200));
    expect(fetched.map((r) => (r.json as WirePet).id)).toEqual(ids);
  });
});
