const NEXT = /<([^>]+)>\s*;\s*rel="?next"?/;

export interface StoreWalk {
  /** Every stored id, ascending, as listed through the `next` links. */
  readonly ids: readonly number[];
  /** A page about 90% deep, reached as a client would (limit=20); undefined without pagination. */
  readonly deepPage: string | undefined;
}

/**
 * Lists the whole store through `Link: <...>; rel="next"`, 100 pets a page. The ids it returns are what
 * random reads pick from: ids are ascending but need not be dense (a MongoDB store may skip one).
 */
export async function walkStore(baseUrl: string, apiKey: string): Promise<StoreWalk> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const ids: number[] = [];
  const nextLinks: string[] = [];
  let path: string | undefined = '/v1/pets?limit=100';
  while (path !== undefined) {
    const response = await fetch(new URL(path, baseUrl), { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    for (const pet of (await response.json()) as { id: number }[]) ids.push(pet.id);
    path = NEXT.exec(response.headers.get('link') ?? '')?.[1];
    if (path !== undefined) nextLinks.push(path);
  }
  const deep = nextLinks[Math.floor(nextLinks.length * 0.9)];
  return { ids, deepPage: deep === undefined ? undefined : withLimit(deep, 20) };
}

function withLimit(path: string, limit: number): string {
  const url = new URL(path, 'http://x');
  url.searchParams.set('limit', String(limit));
  return url.pathname + url.search;
}
