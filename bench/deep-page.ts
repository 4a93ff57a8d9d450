const NEXT = /<([^>]+)>\s*;\s*rel="?next"?/;

/**
 * Follows the list's `Link: <...>; rel="next"` from the first page until about 90% of `stored` pets lie
 * behind, and returns that next link with limit=20: a page deep in the store, reached as a client would.
 * Undefined when the first page carries no next link (pagination not implemented yet).
 */
export async function deepPagePath(baseUrl: string, apiKey: string, stored: number): Promise<string | undefined> {
  const headers = { authorization: `Bearer ${apiKey}` };
  const pageSize = Math.max(1, Math.min(100, Math.floor(stored / 10)));
  let path = `/v1/pets?limit=${pageSize}`;
  for (let seen = 0; seen < stored * 0.9; ) {
    const response = await fetch(new URL(path, baseUrl), { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    seen += ((await response.json()) as unknown[]).length;
    const next = NEXT.exec(response.headers.get('link') ?? '')?.[1];
    if (next === undefined) return seen <= pageSize ? undefined : withLimit(path, 20);
    path = next;
  }
  return withLimit(path, 20);
}

function withLimit(path: string, limit: number): string {
  const url = new URL(path, 'http://x');
  url.searchParams.set('limit', String(limit));
  return url.pathname + url.search;
}
