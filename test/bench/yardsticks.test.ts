import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDbName, startMongoServer, type RunningMongo } from '../support/mongo-server.js';

// The built yardsticks (dist/ is built once by test/support/build-global-setup.ts), each started as the bench does;
// the MongoDB path's on a MongoDB-wire server of its own (the bench's: the service's server, another database).
const YARDSTICKS = { 'node:http': 'yardstick.js', koa: 'plain-koa.js', 'koa-features': 'koa-features.js', fastify: 'fastify-yardstick.js', 'koa-mongodb': 'koa-mongodb.js' };
const AUTH = { authorization: 'Bearer any-key-the-yardsticks-ignore', 'content-type': 'application/json' };

let mongo: RunningMongo | undefined;
afterAll(async () => {
  await mongo?.stop();
});

async function envOf(file: string): Promise<NodeJS.ProcessEnv> {
  if (file !== YARDSTICKS['koa-mongodb']) return {};
  mongo ??= await startMongoServer();
  return { MONGODB_URL: mongo.url, MONGODB_DB: freshDbName('yardstick') };
}

async function start(file: string): Promise<{ child: ChildProcess; url: string }> {
  const entry = fileURLToPath(new URL(`../../bench/dist/${file}`, import.meta.url));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', ...(await envOf(file)) };
  // With the IPC channel the bench opens (the MongoDB yardstick reports its command counts over it).
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const url = /listening on (http:\/\/\S+)\/v1/.exec(chunk.toString())?.[1];
      if (url !== undefined) resolve({ child, url });
    });
    child.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
}

describe.each(Object.entries(YARDSTICKS))('the %s yardstick', (_name, file) => {
  let server: { child: ChildProcess; url: string };
  const call = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, { headers: AUTH, ...init });
  const post = (body: unknown) => call('/v1/pets', { method: 'POST', body: JSON.stringify(body) });

  beforeAll(async () => {
    server = await start(file);
    for (let n = 1; n <= 30; n++) await post({ name: `pet ${n}`, categoryId: n % 3, ...(n % 2 === 0 ? { status: 'available' } : {}) });
  });
  afterAll(() => void server.child.kill());

  it('creates a pet: 201, Location, the pet as JSON', async () => {
    const response = await post({ name: 'Rex', categoryId: 7, status: 'sold' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/v1/pets/31');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ id: 31, name: 'Rex', categoryId: 7, status: 'sold' });
  });

  it('pages through Link rel="next" with an opaque cursor that keeps the status filter', async () => {
    const first = await call('/v1/pets?status=available&limit=10');
    expect(first.status).toBe(200);
    expect(((await first.json()) as { id: number }[]).map((p) => p.id)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    const next = /^<(\/v1\/pets\?limit=10&status=available&cursor=[\w-]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await call(next!);
    expect(((await second.json()) as { id: number }[]).map((p) => p.id)).toEqual([22, 24, 26, 28, 30]);
    expect(second.headers.get('link')).toBeNull();
  });

  it('gets a pet by id, and answers 404 for an unknown one', async () => {
    expect(await (await call('/v1/pets/3')).json()).toEqual({ id: 3, name: 'pet 3', categoryId: 0 });
    const missing = await call('/v1/pets/9999');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'pet_not_found', status: 404 });
  });

  it.each([
    ['limit=0', () => call('/v1/pets?limit=0')],
    ['limit=101', () => call('/v1/pets?limit=101')],
    ['an unknown status', () => call('/v1/pets?status=lost')],
    ['an unknown query parameter', () => call('/v1/pets?colour=red')],
    ['a forged cursor', () => call('/v1/pets?cursor=AAAA')],
    ['a blank name', () => post({ name: ' ', categoryId: 1 })],
    ['a fractional categoryId', () => post({ name: 'Rex', categoryId: 1.5 })],
    ['an unknown status in a new pet', () => post({ name: 'Rex', categoryId: 1, status: 'lost' })],
    ['a malformed id', () => call('/v1/pets/abc')],
  ])('answers 400 with the error body for %s', async (_case, send) => {
    const response = await send();
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ status: 400, code: expect.any(String), message: expect.any(String) });
  });
});

describe('the koa-features yardstick carries what every service response carries', () => {
  let server: { child: ChildProcess; url: string };
  let output = '';

  beforeAll(async () => {
    server = await start(YARDSTICKS['koa-features']);
    server.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await fetch(`${server.url}/v1/pets`, { method: 'POST', headers: AUTH, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
  });
  afterAll(() => void server.child.kill());

  it('answers with a request id and the security headers, getPet with its deprecation notice, and logs a line per request', async () => {
    const list = await fetch(`${server.url}/v1/pets`, { headers: AUTH });
    const get = await fetch(`${server.url}/v1/pets/1`, { headers: AUTH });
    for (const response of [list, get]) {
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
    expect(list.headers.get('deprecation')).toBeNull();
    expect(get.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(get.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    // Lines are written in batches, at least every 100 ms.
    await expect.poll(() => output.split('\n').filter((line) => line.includes('"msg":"request"')).length, { timeout: 2000 }).toBe(3);
    const line = JSON.parse(output.split('\n').find((text) => text.includes(get.headers.get('x-request-id')!))!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, method: 'GET', route: '/v1/pets/:petId', status: 200, msg: 'request', clientAddress: '127.0.0.1' });
    expect(line.durationMs).toEqual(expect.any(Number));
  });
});

describe('the koa-mongodb yardstick counts its MongoDB commands for the bench', () => {
  let server: { child: ChildProcess; url: string };
  const commands = () =>
    new Promise<Record<string, number>>((resolve) => {
      server.child.once('message', (message) => resolve({ ...(message as { commands: Record<string, number> }).commands }));
      server.child.send('commands');
    });
  const sent = async (request: () => Promise<Response>) => {
    const before = await commands();
    const response = await request();
    const after = await commands();
    return { status: response.status, commands: Object.fromEntries(Object.entries(after).filter(([c, n]) => n !== (before[c] ?? 0)).map(([c, n]) => [c, n - (before[c] ?? 0)])) };
  };

  beforeAll(async () => {
    server = await start(YARDSTICKS['koa-mongodb']);
  });
  afterAll(() => void server.child.kill());

  it('creates in two round trips (the id counter, the insert), lists and gets in one', async () => {
    const create = () => fetch(`${server.url}/v1/pets`, { method: 'POST', headers: AUTH, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
    expect(await sent(create)).toEqual({ status: 201, commands: { findAndModify: 1, insert: 1 } });
    expect(await sent(() => fetch(`${server.url}/v1/pets?limit=5`, { headers: AUTH }))).toEqual({ status: 200, commands: { find: 1 } });
    expect(await sent(() => fetch(`${server.url}/v1/pets/1`, { headers: AUTH }))).toEqual({ status: 200, commands: { find: 1 } });
    expect(await sent(() => fetch(`${server.url}/v1/pets?limit=0`, { headers: AUTH }))).toEqual({ status: 400, commands: {} });
  });
});
