import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { checkListQuery, checkNewPet, checkPetId, errorBody, JSON_TYPE, PetStore } from './yardstick-store.js';

/*
 * The bare yardstick: a hand-rolled node:http server answering the service's three routes with the same
 * JSON and the same Link and Location headers. No framework, no auth (the Authorization header is ignored),
 * no logs, metrics or limits.
 */
const store = new PetStore();

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': JSON_TYPE, ...headers }).end(JSON.stringify(body));
}

const fail = (res: ServerResponse, status: number, code: string, message?: string) => send(res, status, errorBody(status, code, message));

function list(res: ServerResponse, url: URL): void {
  const query = checkListQuery(Object.fromEntries(url.searchParams));
  if (typeof query === 'string') return fail(res, 400, 'validation_failed', query);
  const { pets, link } = store.list(query);
  send(res, 200, pets, link === undefined ? {} : { link });
}

function create(req: IncomingMessage, res: ServerResponse): void {
  let text = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(res, 400, 'malformed_json');
    }
    const newPet = checkNewPet(body);
    if (typeof newPet === 'string') return fail(res, 400, 'validation_failed', newPet);
    const pet = store.add(newPet);
    send(res, 201, pet, { location: `/v1/pets/${pet.id}` });
  });
}

function get(res: ServerResponse, idText: string): void {
  const id = checkPetId(idText);
  if (id === undefined) return fail(res, 400, 'validation_failed', 'petId must be an integer.');
  const pet = store.get(id);
  return pet === undefined ? fail(res, 404, 'pet_not_found') : send(res, 200, pet);
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://yardstick');
  if (url.pathname === '/v1/pets') return req.method === 'POST' ? create(req, res) : list(res, url);
  if (url.pathname.startsWith('/v1/pets/') && req.method === 'GET') return get(res, url.pathname.slice(9));
  fail(res, 404, 'not_found');
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const address = server.address();
  if (address !== null && typeof address === 'object') {
    process.stdout.write(`node:http yardstick listening on http://${address.address}:${address.port}/v1\n`);
  }
});
