import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';

interface ListedPet {
  readonly id: bigint;
  readonly status?: string;
}

const NEXT = /^<([^>]+)>; rel="next"$/;

function nextPath(link: string | null): string | undefined {
  if (link === null) return undefined;
  const match = NEXT.exec(link);
  expect(match, `Link header ${link}`).not.toBeNull();
  return match![1];
}

describe('listPets pagination', () => {
  const server = useTestServer();
  const statuses = ['available', 'pending', 'sold', undefined] as const;

  beforeAll(async () => {
    for (let i = 0; i < 23; i++) {
      const status = statuses[i % 4];
      const body = status === undefined ? `{"name":"p${i}","categoryId":${i}}` : `{"name":"p${i}","categoryId":${i},"status":"${status}"}`;
      expect((await server.createPet(body)).status).toBe(201);
    }
  });

  async function followAll(firstPath: string): Promise<{ pages: ListedPet[][]; lastLink: string | null }> {
    const pages: ListedPet[][] = [];
    let path: string | undefined = firstPath;
    let lastLink: string | null = null;
    while (path !== undefined) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(200);
      pages.push(response.json as ListedPet[]);
      lastLink = response.headers.get('link');
      path = nextPath(lastLink);
      expect(pages.length).toBeLessThan(50);
    }
    return { pages, lastLink };
  }

  it('links to the next page while more pets match, keeping limit and status', async () => {
    const response = await server.request('GET', '/v1/pets?limit=5&status=sold');
    const next = nextPath(response.headers.get('link'));
    expect(next).toMatch(/^\/v1\/pets\?limit=5&status=sold&cursor=[A-Za-z0-9_-]+$/);
  });

  it('visits every pet exactly once in ascending order, and the last page has no next link', async () => {
    const { pages } = await followAll('/v1/pets?limit=5');
    expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 3]);
    const ids = pages.flat().map((pet) => pet.id);
    expect(ids).toHaveLength(23);
    expect(new Set(ids).size).toBe(23);
    expect([...ids].sort((a, b) => (a < b ? -1 : 1))).toEqual(ids);
  });

  it('visits every pet of one status exactly once', async () => {
    const { pages } = await followAll('/v1/pets?limit=2&status=available');
    const pets = pages.flat();
    expect(pets).toHaveLength(6);
    expect(pets.every((pet) => pet.status === 'available')).toBe(true);
  });

  it('sends no next link when everything fits on one page', async () => {
    const response = await server.request('GET', '/v1/pets?limit=100');
    expect(response.headers.get('link')).toBeNull();
    expect((response.json as unknown[]).length).toBe(23);
  });

  it('misses nothing and repeats nothing while pets are being added', async () => {
    const seen: bigint[] = [];
    let path: string | undefined = '/v1/pets?limit=4';
    let added = 0;
    while (path !== undefined) {
      const response = await server.request('GET', path);
      seen.push(...(response.json as ListedPet[]).map((pet) => pet.id));
      if (added < 3) {
        await server.createPet(`{"name":"late${added}","categoryId":1}`);
        added++;
      }
      path = nextPath(response.headers.get('link'));
    }
    const all = (await server.request('GET', '/v1/pets?limit=100')).json as ListedPet[];
    expect(seen).toEqual(all.map((pet) => pet.id));
  });

  it.each([
    ['garbage', 'cursor=!!!'],
    ['an empty cursor', 'cursor='],
    ['a repeated cursor', 'cursor=a&cursor=b'],
  ])('answers 400 for %s', async (_, query) => {
    const response = await server.request('GET', `/v1/pets?limit=5&${query}`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ status: 400n, code: 'validation_failed' });
  });

  it('answers 400 invalid_cursor for a tampered, truncated or foreign-filter cursor', async () => {
    const first = await server.request('GET', '/v1/pets?limit=5');
    const cursor = new URL(nextPath(first.headers.get('link'))!, server.url).searchParams.get('cursor')!;
    const flipped = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
    for (const query of [`cursor=${flipped}`, `cursor=${cursor.slice(0, -2)}`, `cursor=${cursor}AA`, `cursor=${cursor}&status=sold`]) {
      const response = await server.request('GET', `/v1/pets?limit=5&${query}`);
      expect(response.status, query).toBe(400);
      expect(response.json).toEqual({ code: 'invalid_cursor', message: expect.stringContaining('cursor'), status: 400n });
    }
  });
});
