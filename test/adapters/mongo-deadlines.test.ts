import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StorageUnavailable } from '../../src/core/errors.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { freshMongoSettings, openTestStore, rawClient, type TestStore } from '../support/mongo-test-db.js';
import { rawExchange } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// Every request's bound, counted from its arrival; answers may come this much later on a loaded 2-core machine.
const TIMEOUT_MS = 1500;
const SCHEDULING_SLACK_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('MongoPetRepository, deadlines counted from the request\'s arrival', () => {
  let store: TestStore;
  const commands: string[] = [];
  // A deadline passed by the time its timer is set must not print Node's TimeoutNegativeWarning to stderr.
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(String(warning));

  afterAll(() => {
    process.off('warning', onWarning);
  });

  beforeAll(async () => {
    process.on('warning', onWarning);
    store = openTestStore(freshMongoSettings('deadline', { timeoutMs: TIMEOUT_MS }));
    await store.repository.add({ name: 'first', categoryId: 1n });
    store.connection.onCommand((command) => commands.push(command));
  });
  afterAll(async () => {
    await store.close();
  });

  it('answers StorageUnavailable at once, sending nothing, when the request\'s time was over before the call', async () => {
    commands.length = 0;
    const arrivedAt = performance.now() - TIMEOUT_MS - 1;
    const started = performance.now();
    for (const call of [
      store.repository.list({ limit: 1 }, arrivedAt),
      store.repository.findById(1n, arrivedAt),
      store.repository.add({ name: 'too late', categoryId: 1n }, arrivedAt),
    ]) {
      await expect(call).rejects.toBeInstanceOf(StorageUnavailable);
    }
    expect(performance.now() - started).toBeLessThan(SCHEDULING_SLACK_MS);
    expect(commands).toEqual([]);
  });

  it('sends no insert for a create whose request has too little time left to see it through, and stores nothing', async () => {
    const before = await store.repository.count();
    commands.length = 0;
    await expect(store.repository.add({ name: 'short of time', categoryId: 1n }, performance.now() - 0.6 * TIMEOUT_MS)).rejects.toBeInstanceOf(
      StorageUnavailable,
    );
    expect(commands).not.toContain('insert');
    expect(await store.repository.count()).toBe(before);
    // With its time still ahead, the same create is stored.
    const stored = await store.repository.add({ name: 'in time', categoryId: 1n }, performance.now());
    expect(await store.repository.findById(stored.id)).toEqual(stored);
  });

  it('sets no timer with a negative delay: no process warning over the requests above', async () => {
    const arrivedAt = performance.now() - TIMEOUT_MS + 0.01;
    await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? store.repository.list({ limit: 1 }, arrivedAt) : store.repository.findById(1n, arrivedAt))));
    await sleep(10);
    expect(warnings).toEqual([]);
  });
});

describe('MongoPetRepository behind a hung batch', () => {
  let proxy: TcpProxy;
  let store: TestStore;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    store = openTestStore(freshMongoSettings('hung-batch', { url: proxy.url, timeoutMs: TIMEOUT_MS }));
    await Promise.all(Array.from({ length: 4 }, () => store.repository.list({ limit: 1 })));
  });
  afterAll(async () => {
    await proxy.up();
    await store.close();
    await proxy.down();
  });

  it('answers each request that joins the next batch at its own deadline, not the hung batch\'s plus its own', async () => {
    proxy.blackHole();
    const answered = (arrivedAt: number, call: Promise<unknown>) =>
      call.then(
        () => ({ ms: performance.now() - arrivedAt, error: undefined }),
        (error: unknown) => ({ ms: performance.now() - arrivedAt, error }),
      );
    const calls: Promise<{ ms: number; error: unknown }>[] = [];
    for (let i = 0; i < 8; i++) {
      const arrivedAt = performance.now();
      calls.push(answered(arrivedAt, i % 2 === 0 ? store.repository.list({ limit: 5 }, arrivedAt) : store.repository.findById(1n, arrivedAt)));
      await sleep(250);
    }
    for (const { ms, error } of await Promise.all(calls)) {
      expect(error).toBeInstanceOf(StorageUnavailable);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(ms).toBeLessThan(TIMEOUT_MS + SCHEDULING_SLACK_MS);
    }
  });
});

describe('the service, requests arriving one after another into a black-holed MongoDB', () => {
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    server = await startTestServer({ storage: 'mongodb', mongodb: freshMongoSettings('staggered', { url: proxy.url, timeoutMs: TIMEOUT_MS }) });
    expect((await server.createPet('{"name":"Rex","categoryId":1}')).status).toBe(201);
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  it('answers each of 40 requests over 3 s 503 with Retry-After within the timeout of its sending, then 200 once MongoDB answers', async () => {
    proxy.blackHole();
    const requests = [
      () => server.request('GET', '/v1/pets'),
      () => server.request('GET', '/v1/pets/1'),
      () => server.request('POST', '/v1/pets', { headers: { 'Content-Type': 'application/json' }, body: '{"name":"Rex","categoryId":1}' }),
    ];
    const answers: Promise<{ status: number; retryAfter: string | null; ms: number }>[] = [];
    for (let i = 0; i < 40; i++) {
      const sentAt = performance.now();
      answers.push(requests[i % 3]!().then((response) => ({ status: response.status, retryAfter: response.headers.get('retry-after'), ms: performance.now() - sentAt })));
      await sleep(75);
    }
    const settled = await Promise.all(answers);
    process.stderr.write(`[deadline] 40 staggered requests into a black hole: answers in ${Math.round(Math.min(...settled.map((a) => a.ms)))} to ${Math.round(Math.max(...settled.map((a) => a.ms)))} ms\n`);
    expect(settled.map(({ status, retryAfter }) => `${status} ${retryAfter}`)).toEqual(Array(40).fill('503 5'));
    for (const { ms } of settled) expect(ms).toBeLessThan(TIMEOUT_MS + SCHEDULING_SLACK_MS);

    await proxy.up();
    const back = performance.now();
    while ((await server.request('GET', '/v1/pets')).status !== 200) {
      expect(performance.now() - back).toBeLessThan(5000);
      await sleep(50);
    }
  });
});

describe('the service, a burst of creates whose ids collide', () => {
  const STORED = 300;
  const REWOUND_BY = 250;
  const BURST = 1000;
  const settings = freshMongoSettings('collisions');
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ storage: 'mongodb', mongodb: settings });
    const client = await rawClient(settings);
    try {
      const db = client.db(settings.db);
      await db.collection<{ _id: bigint }>('pets').insertMany(Array.from({ length: STORED }, (_, i) => ({ _id: BigInt(i + 1), name: `stored-${i + 1}`, categoryId: 1n })));
      // As a second writer or a restored backup leaves it: the next 250 ids the counter hands out are taken.
      await db.collection<{ _id: string; seq: bigint }>('counters').updateOne({ _id: 'pets' }, { $set: { seq: BigInt(STORED - REWOUND_BY) } }, { upsert: true });
    } finally {
      await client.close();
    }
  });
  afterAll(async () => {
    await server.stop();
  });

  it(`answers ${BURST} concurrent creates 201, or 503 with Retry-After, and stores exactly the pets answered 201`, async () => {
    const create = async (name: string) => {
      const body = JSON.stringify({ name, categoryId: 1 });
      const raw = await rawExchange(server.url, [
        `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      ]);
      const [head = '', text = ''] = raw.split('\r\n\r\n');
      return { name, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), retryAfter: /^Retry-After: (.*)$/im.exec(head)?.[1], text };
    };
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => create(`burst-${i}`)));
    const created = answers.filter((answer) => answer.status === 201);
    const client = await rawClient(settings);
    const stored = await client
      .db(settings.db)
      .collection<{ _id: bigint; name: string }>('pets')
      .find({ name: /^burst-/ })
      .toArray()
      .finally(() => client.close());
    process.stderr.write(`[deadline] ${BURST} colliding creates: ${created.length} x 201, ${stored.length} stored\n`);

    expect(answers.filter((answer) => answer.status !== 201 && !(answer.status === 503 && answer.retryAfter === '5'))).toEqual([]);
    expect(stored.map((pet) => pet.name).sort()).toEqual(created.map((answer) => answer.name).sort());
    // Each 201 names its own stored pet, under an id past the ones stored before.
    const storedIds = new Map(stored.map((pet) => [pet.name, pet._id]));
    for (const answer of created) expect(BigInt((JSON.parse(answer.text) as { id: number }).id)).toBe(storedIds.get(answer.name));
    expect(stored.every((pet) => pet._id > BigInt(STORED))).toBe(true);
    expect(created.length).toBeGreaterThan(0);
  });
});
