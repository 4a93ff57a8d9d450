import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { MongoConnection } from '../../src/adapters/mongo/connect-mongo.js';
import { createIndexes } from '../../src/adapters/mongo/mongo-indexes.js';
import { MongoPetRepository } from '../../src/adapters/mongo/mongo-pet-repository.js';
import { MongoRateLimiter } from '../../src/adapters/mongo/mongo-rate-limiter.js';
import { StorageUnavailable } from '../../src/core/errors.js';
import type { IdempotentCreate } from '../../src/ports/pet-repository.js';
import { FakeClock } from '../support/fake-clock.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { dropTestDatabase, freshMongoSettings, openTestStore, rawClient, type TestStore } from '../support/mongo-test-db.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// The outage bound under test: operations give up after this, plus slack for a loaded CI machine.
const TIMEOUT_MS = 1500;
const SLACK_MS = 1500;
// Start-up also composes the app, listens and fetches the OpenAPI document before it is timed as done.
const START_SLACK_MS = 3000;
// A silent partition (connections open, nothing answered) must cost one timeout, not one per driver
// retry: the bound is the timeout plus slack for a loaded machine, well under twice the timeout.
const PARTITION_TIMEOUT_MS = 2000;
const PARTITION_SLACK_MS = 1000;

/** How long the promise took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const start = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: Math.round(performance.now() - start), result: result! };
}

function report(what: string, ms: number): void {
  process.stderr.write(`[outage] ${what}: ${ms} ms (${inject('mongoKind')})\n`);
}

function reportPartition(what: string, ms: number): void {
  process.stderr.write(`[partition] ${what}: ${ms} ms (timeout ${PARTITION_TIMEOUT_MS} ms, ${inject('mongoKind')})\n`);
}

describe('MongoPetRepository while MongoDB is down', () => {
  let proxy: TcpProxy;
  let store: TestStore;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    store = openTestStore(freshMongoSettings('outage', { url: proxy.url, timeoutMs: TIMEOUT_MS }));
  });
  afterAll(async () => {
    await proxy.up();
    await store.close();
    await proxy.down();
  });

  it('answers StorageUnavailable within the timeout for every operation, then recovers with its data', async () => {
    const repo = store.repository;
    const before = await repo.add({ name: 'before', categoryId: 1n });
    await proxy.down();

    // Twice: right after the connections drop, and again once the driver has seen them fail.
    for (const round of ['first', 'second']) {
      const outcomes = await Promise.all(
        Object.entries({
          add: repo.add({ name: 'during', categoryId: 2n }),
          findById: repo.findById(before.id),
          list: repo.list({ limit: 10 }),
          count: repo.count(),
        }).map(async ([name, operation]) => ({ name, ...(await timed<unknown>(operation)) })),
      );
      for (const { name, ms, result } of outcomes) {
        report(`${round} ${name} while down`, ms);
        expect(result.status, name).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as Error;
        expect(reason, name).toBeInstanceOf(StorageUnavailable);
        expect(reason.message).toBe('Storage is temporarily unavailable. Retry later.');
        expect(ms, name).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }
    }
    const probe = await timed(repo.isReachable());
    report('isReachable while down', probe.ms);
    expect(probe.result).toEqual({ status: 'fulfilled', value: false });
    expect(probe.ms).toBeLessThan(1000 + SLACK_MS);

    await proxy.up();
    const recovered = await timed(repo.add({ name: 'after', categoryId: 3n }));
    report('first add after the server is back', recovered.ms);
    expect(recovered.result.status).toBe('fulfilled');
    expect(recovered.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    const after = (recovered.result as PromiseFulfilledResult<Awaited<ReturnType<typeof repo.add>>>).value;
    expect(after.id > before.id).toBe(true);
    expect(await repo.findById(before.id)).toEqual(before);
    expect(await repo.isReachable()).toBe(true);
  });
});

describe('the service started while MongoDB is down', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  let startMs: number;
  const settings = freshMongoSettings('late');

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    const start = performance.now();
    server = await startTestServer({ storage: 'mongodb', mongodb: { ...settings, url: proxy.url, timeoutMs: TIMEOUT_MS } });
    startMs = Math.round(performance.now() - start);
    report('start-up with MongoDB down', startMs);
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  it('starts within the timeout, answers 503 promptly, and recovers without a restart', async () => {
    expect(startMs).toBeLessThan(TIMEOUT_MS + START_SLACK_MS);

    const ready = await timed(server.request('GET', '/readyz'));
    report('/readyz while down', ready.ms);
    expect(ready.result).toMatchObject({ status: 'fulfilled', value: { status: 503, text: '{"status":"unavailable"}' } });

    for (const [method, path, body] of [
      ['GET', '/v1/pets', undefined],
      ['GET', '/v1/pets/1', undefined],
      ['POST', '/v1/pets', '{"name":"Rex","categoryId":1}'],
    ] as const) {
      const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
      const { ms, result } = await timed(server.request(method, path, { headers, body }));
      report(`${method} ${path} while down`, ms);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      const response = (result as PromiseFulfilledResult<Awaited<ReturnType<TestServer['request']>>>).value;
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.json).toEqual({
        code: 'storage_unavailable',
        message: 'Storage is temporarily unavailable. Retry later.',
        status: 503n,
      });
    }

    await proxy.up();
    const back = performance.now();
    while ((await server.request('GET', '/readyz')).status !== 200) {
      expect(performance.now() - back).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    report('ready again after the server is back', Math.round(performance.now() - back));

    const created = await server.createPet('{"name":"Rex","categoryId":9223372036854775807}');
    expect(created.status).toBe(201);
    const listed = await server.request('GET', '/v1/pets');
    expect(listed.text).toBe(`[${created.text}]`);
    // The index that start-up could not create was created on reconnect.
    const client = await rawClient({ ...settings, url: proxy.url });
    try {
      const names = (await client.db(settings.db).collection('pets').indexes()).map((index) => index.name);
      expect(names).toContain('status_1__id_1');
    } finally {
      await client.close();
    }
  });
});

function expectUnavailableWithinTimeout(what: string, { ms, result }: { ms: number; result: PromiseSettledResult<unknown> }): void {
  reportPartition(what, ms);
  expect(result.status, what).toBe('rejected');
  expect((result as PromiseRejectedResult).reason, what).toBeInstanceOf(StorageUnavailable);
  expect(ms, what).toBeLessThan(PARTITION_TIMEOUT_MS + PARTITION_SLACK_MS);
}

/** Counts what the driver does underneath the adapters (command monitoring and pool events). */
function watchDriver(client: MongoClient) {
  const checkOuts: number[] = [];
  let commandsUnfinished = 0;
  client.on('connectionCheckOutStarted', () => checkOuts.push(performance.now()));
  client.on('commandStarted', () => commandsUnfinished++);
  client.on('commandSucceeded', () => commandsUnfinished--);
  client.on('commandFailed', () => commandsUnfinished--);
  return {
    /** A driver retry asks the pool for a connection once its first attempt failed. */
    checkOutsAfter: (time: number) => checkOuts.filter((at) => at > time).length,
    commandsUnfinished: () => commandsUnfinished,
  };
}

// A fixed clock in the middle of a minute, so that the window cannot turn during the test; exchanges by hand.
const LIMITER_OPTIONS = { exchangeEveryMs: 3_600_000, now: () => Date.UTC(2030, 0, 1, 0, 0, 30) };

const keyed = (key: string): IdempotentCreate => ({ key, fingerprint: 'fp', now: Date.UTC(2030, 0, 1), expiresAt: Date.UTC(2030, 0, 2) });

describe('the MongoDB adapters in a silent network partition', () => {
  const settings = freshMongoSettings('partition');
  let proxy: TcpProxy;
  let connection: MongoConnection;
  let limiter: MongoRateLimiter;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    connection = new MongoConnection({ ...settings, url: proxy.url, timeoutMs: PARTITION_TIMEOUT_MS }, createIndexes);
    limiter = new MongoRateLimiter(connection, 'partition', 100, 60, LIMITER_OPTIONS);
  });
  afterAll(async () => {
    await proxy.up();
    await limiter.close();
    await connection.close();
    await proxy.down();
    await dropTestDatabase(settings);
  });

  it('answers every storage operation StorageUnavailable within the timeout, retries included, then recovers', async () => {
    const pets = new MongoPetRepository(connection);
    const before = await pets.add({ name: 'before', categoryId: 1n });
    expect(await pets.addOnce({ name: 'keyed', categoryId: 1n }, keyed('used'))).toMatchObject({ replayed: false });
    limiter.hit('k');
    await limiter.exchange();
    limiter.hit('k');
    // Enough pooled connections for every call below, so that each sends its command at once (as on a busy service).
    await Promise.all(Array.from({ length: 10 }, () => pets.list({ limit: 1 })));
    const driver = watchDriver((await connection.db()).client);
    proxy.blackHole();
    const partitioned = performance.now();

    const outcomes = await Promise.all(
      Object.entries({
        list: pets.list({ limit: 10 }),
        findById: pets.findById(before.id),
        add: pets.add({ name: 'during', categoryId: 2n }),
        count: pets.count(),
        addOnce: pets.addOnce({ name: 'during', categoryId: 2n }, keyed('new')),
        replay: pets.addOnce({ name: 'keyed', categoryId: 1n }, keyed('used')),
      }).map(async ([name, operation]) => ({ name, outcome: await timed<unknown>(operation) })),
    );
    for (const { name, outcome } of outcomes) expectUnavailableWithinTimeout(`${name} while black-holed`, outcome);
    // What the driver does with the calls given up: no retry starts after the deadline, and no command
    // is still waiting shortly after it (the adapter's abort, or socketTimeoutMS for writes, closed its connection).
    await new Promise((resolve) => setTimeout(resolve, partitioned + PARTITION_TIMEOUT_MS + PARTITION_SLACK_MS - performance.now()));
    expect(driver.checkOutsAfter(partitioned + PARTITION_TIMEOUT_MS / 2)).toBe(0);
    expect(driver.commandsUnfinished()).toBe(0);

    // A second round, once the driver has seen its first operations time out.
    expectUnavailableWithinTimeout('second list while black-holed', await timed(pets.list({ limit: 10 })));

    const exchange = await timed(limiter.exchange());
    reportPartition('rate-limit exchange while black-holed', exchange.ms);
    expect(exchange.result.status).toBe('fulfilled');
    expect(exchange.ms).toBeLessThan(PARTITION_TIMEOUT_MS + PARTITION_SLACK_MS);
    // The hit it could not send is kept for the next exchange.
    expect(limiter.peek('k').used).toBe(2);

    await proxy.up();
    const back = performance.now();
    let listed = await Promise.allSettled([pets.list({ limit: 10 })]);
    while (listed[0]!.status === 'rejected' && performance.now() - back < 3 * PARTITION_TIMEOUT_MS) {
      listed = await Promise.allSettled([pets.list({ limit: 10 })]);
    }
    reportPartition('first successful list after the partition healed', Math.round(performance.now() - back));
    expect(listed[0]).toMatchObject({ status: 'fulfilled' });
    expect((listed[0] as PromiseFulfilledResult<unknown[]>).value).toContainEqual(before);
    const other = new MongoRateLimiter(connection, 'partition', 100, 60, LIMITER_OPTIONS);
    try {
      other.hit('k');
      // The first commands after the reset may still fail on connections the driver has not dropped yet.
      await vi.waitFor(
        async () => {
          await limiter.exchange();
          await other.exchange();
          // Every hit reached the store: the one sent before, the one kept through the partition, the other's.
          expect(other.peek('k').used).toBe(3);
        },
        { timeout: 3 * PARTITION_TIMEOUT_MS, interval: 100 },
      );
    } finally {
      await other.close();
    }
  });
});

describe('the service in a silent network partition', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  const settings = freshMongoSettings('partition-http');

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    server = await startTestServer({ storage: 'mongodb', mongodb: { ...settings, url: proxy.url, timeoutMs: PARTITION_TIMEOUT_MS } });
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  it('answers 503 storage_unavailable within the timeout for reads, creates and keyed creates', async () => {
    const created = await server.createPet('{"name":"Rex","categoryId":1}');
    expect(created.status).toBe(201);
    proxy.blackHole();
    for (const [method, path, headers] of [
      ['GET', '/v1/pets', {}],
      ['GET', '/v1/pets/1', {}],
      ['POST', '/v1/pets', { 'Content-Type': 'application/json' }],
      ['POST', '/v1/pets', { 'Content-Type': 'application/json', 'Idempotency-Key': '"partition-1"' }],
    ] as const) {
      const body = method === 'POST' ? '{"name":"Rex","categoryId":1}' : undefined;
      const { ms, result } = await timed(server.request(method, path, { headers, body }));
      const what = `${method} ${path}${'Idempotency-Key' in headers ? ' with an Idempotency-Key' : ''} while black-holed`;
      reportPartition(what, ms);
      expect(result.status, what).toBe('fulfilled');
      const response = (result as PromiseFulfilledResult<Awaited<ReturnType<TestServer['request']>>>).value;
      expect(response.status, what).toBe(503);
      expect(response.json, what).toMatchObject({ code: 'storage_unavailable' });
      expect(ms, what).toBeLessThan(PARTITION_TIMEOUT_MS + PARTITION_SLACK_MS);
    }
  });
});

describe('the service when a keyed create stored its pet but lost the answer', () => {
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  const settings = freshMongoSettings('lost-answer');
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    server = await startTestServer({ storage: 'mongodb', mongodb: { ...settings, url: proxy.url, timeoutMs: TIMEOUT_MS } }, { clock });
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  // The pet's name appears in the insert of the pet only (the key and fingerprint are hashes), so it marks that request.
  const create = (key: string, name: string) =>
    server.request('POST', '/v1/pets', {
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: `{"name":"${name}","categoryId":7}`,
    });
  const petsNamed = async (name: string) => ((await server.request('GET', '/v1/pets?limit=100')).json as { name: string }[]).filter((pet) => pet.name === name);
  /** A keyed create whose insert reaches the server and whose reply is lost: it answers 503. */
  const createLosingTheInsertReply = async (key: string, name: string, then: 'reset' | 'down') => {
    const lost = proxy.loseReplyTo(name, then);
    const first = await create(key, name);
    await lost;
    expect(first.status).toBe(503);
    expect(first.json).toMatchObject({ code: 'storage_unavailable' });
  };

  it('answers 503 when the reply to the insert is lost, and the retry with the same key answers that very pet', async () => {
    const name = `reset-${Date.now()}`;
    await createLosingTheInsertReply('lost-reset', name, 'reset');
    // The stored pet carries the key: the retry finds it and answers it as a replay.
    const retry = await create('lost-reset', name);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(`/v1/pets/${(retry.json as { id: bigint }).id}`);
    expect(await petsNamed(name)).toEqual([retry.json]);
    expect(await create('lost-reset', name)).toMatchObject({ status: 201, text: retry.text });
    expect(await petsNamed(name)).toHaveLength(1);
  });

  it('answers 503 when MongoDB goes down right after the insert, and once it is back the retry answers that very pet', async () => {
    const name = `down-${Date.now()}`;
    await createLosingTheInsertReply('lost-down', name, 'down');

    await proxy.up();
    await vi.waitFor(async () => expect((await server.request('GET', '/readyz')).status).toBe(200), { timeout: 5000, interval: 50 });
    // Past the key's time to live too: the same body still finds its pet.
    clock.advance(2 * 86_400_000);
    const retry = await create('lost-down', name);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await petsNamed(name)).toEqual([retry.json]);
  });
});
