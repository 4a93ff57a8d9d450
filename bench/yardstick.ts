import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/*
 * The yardstick: a hand-rolled node:http server answering the service's three routes with the same JSON
 * from in-memory arrays. Ids are 1, 2, 3..., so pets[id - 1] finds a pet and a per-status array sorted by
 * id serves the status filter; the cursor is the last id of the page. Not int64-exact: ids are numbers.
 */
interface Pet { id: number; name: string; categoryId: number; status?: string }

const STATUSES = ['available', 'pending', 'sold'];
const pets: Pet[] = [];
const byStatus = new Map<string, Pet[]>(STATUSES.map((s) => [s, []]));
const auth = `Bearer ${process.env.API_KEYS ?? ''}`;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, code: string): void {
  send(res, status, { code, message: code, status });
}

function firstAfter(list: Pet[], id: number): number {
  let low = 0, high = list.length;
  while (low < high) { const mid = (low + high) >>> 1; if (list[mid]!.id <= id) low = mid + 1; else high = mid; }
  return low;
}

function list(res: ServerResponse, url: URL): void {
  const limit = Number(url.searchParams.get('limit') ?? 20);
  const status = url.searchParams.get('status');
  const cursor = Number(url.searchParams.get('cursor') ?? 0);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return fail(res, 400, 'validation_failed');
  if (status !== null && !byStatus.has(status)) return fail(res, 400, 'validation_failed');
  const source = status === null ? pets : byStatus.get(status)!;
  const start = firstAfter(source, cursor);
  const page = source.slice(start, start + limit);
  if (start + limit >= source.length) return send(res, 200, page);
  const next = `/v1/pets?limit=${limit}${status === null ? '' : `&status=${status}`}&cursor=${page.at(-1)!.id}`;
  send(res, 200, page, { link: `<${next}>; rel="next"` });
}

function create(req: IncomingMessage, res: ServerResponse): void {
  let text = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
    let body: Partial<Pet>;
    try { body = JSON.parse(text) as Partial<Pet>; } catch { return fail(res, 400, 'malformed_json'); }
    const { name, categoryId, status } = body;
    if (typeof name !== 'string' || name.trim() === '' || !Number.isInteger(categoryId)) return fail(res, 400, 'validation_failed');
    if (status !== undefined && !byStatus.has(status)) return fail(res, 400, 'validation_failed');
    const pet: Pet = status === undefined ? { id: pets.length + 1, name, categoryId: categoryId! } : { id: pets.length + 1, name, categoryId: categoryId!, status };
    pets.push(pet);
    if (status !== undefined) byStatus.get(status)!.push(pet);
    send(res, 201, pet, { location: `/v1/pets/${pet.id}` });
  });
}

const server = createServer((req, res) => {
  if (req.headers.authorization !== auth) return fail(res, 401, 'invalid_api_key');
  const url = new URL(req.url ?? '/', 'http://yardstick');
  if (url.pathname === '/v1/pets') return req.method === 'POST' ? create(req, res) : list(res, url);
  const pet = /^\/v1\/pets\/(\d+)$/.test(url.pathname) ? pets[Number(url.pathname.slice(9)) - 1] : undefined;
  return pet === undefined ? fail(res, 404, 'pet_not_found') : send(res, 200, pet);
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') {
    process.stdout.write(`Yardstick listening on http://${address.address}:${address.port}/v1\n`);
  }
});
