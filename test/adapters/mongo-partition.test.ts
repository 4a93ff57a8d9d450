import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MongoConnection } from '../../src/adapters/mongo/connect-mongo.js';
import { MongoIdempotencyStore } from '../../src/adapters/mongo/mongo-idempotency-store.js';
import { createIndexes } from '../../src/adapters/mongo/mongo-indexes.js';
import { MongoPetRepository } from '../../src/adapters/mongo/mongo-pet-repository.js';
import { MongoRateLimiter } from '../../src/adapters/mongo/mongo-rate-limiter.js';
import { StorageUnavailable } from '../../src/core/errors.js';
import type { IdempotencyClaim } from '../../src/ports/idempotency-store.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { dropTestDatabase, freshMongoSettings } from '../support/mongo-test-db.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// A silent partition (connections open, nothing answered) must cost one timeout, not one per driver
// retry: the bound is the timeout plus slack for a loaded machine, well under twice the timeout.
const TIMEOUT_MS = 2000;
const SLACK_MS = 1000;

/** How long the promise took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const start = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: Math.round(performance.now() - start), result: result! };
}

function report(what: string, ms: number): void {
  process.stderr.write(`[partition] ${what}: ${ms} ms (timeout ${TIMEOUT_MS} ms, ${inject('mongoKind')})\n`);
}

function expectUnavailableWithinTimeout(what: string, { ms, result }: { ms: number; result: PromiseSettledResult<unknown> }): void {
  report(what, ms);
  expect(result.status, what).toBe('rejected');
  expect((result as PromiseRejectedResult).reason, what).toBeInstanceOf(StorageUnavailable);
  expect(ms, what).toBeLessThan(TIMEOUT_MS + SLACK_MS);
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

const claimOf = (key: string): IdempotencyClaim => ({ key, fingerprint: 'fp', now: Date.UTC(2030, 0, 1), ttlMs: 3_600_000, leaseMs: 60_000 });

describe('the MongoDB adapters in a silent network partition', () => {
  const settings = freshMongoSettings('partition');
  let proxy: TcpProxy;
  let connection: MongoConnection;
  let limiter: MongoRateLimiter;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    connection = new MongoConnection({ ...settings, url: proxy.url, timeoutMs: TIMEOUT_MS }, createIndexes);
    limiter = new MongoRateLimiter(connection, 'partition', 100, 60, { exchangeEveryMs: 3_600_000 });
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
    const store = new MongoIdempotencyStore(connection);
    const before = await pets.add({ name: 'before', categoryId: 1n });
    expect(await store.claim(claimOf('to-complete'))).toBeUndefined();
    expect(await store.claim(claimOf('to-release'))).toBeUndefined();
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
        claim: store.claim(claimOf('new')),
        complete: store.complete('to-complete', { status: 201, body: '{}' }),
        release: store.release('to-release'),
      }).map(async ([name, operation]) => ({ name, outcome: await timed<unknown>(operation) })),
    );
    for (const { name, outcome } of outcomes) expectUnavailableWithinTimeout(`${name} while black-holed`, outcome);
    // What the driver does with the calls given up: no retry starts after the deadline, and no command
    // is still waiting shortly after it (the adapter's abort, or socketTimeoutMS for writes, closed its connection).
    await new Promise((resolve) => setTimeout(resolve, partitioned + TIMEOUT_MS + SLACK_MS - performance.now()));
    expect(driver.checkOutsAfter(partitioned + TIMEOUT_MS / 2)).toBe(0);
    expect(driver.commandsUnfinished()).toBe(0);

    // A second round, once the driver has seen its first operations time out.
    expectUnavailableWithinTimeout('second list while black-holed', await timed(pets.list({ limit: 10 })));

    const exchange = await timed(limiter.exchange());
    report('rate-limit exchange while black-holed', exchange.ms);
    expect(exchange.result.status).toBe('fulfilled');
    expect(exchange.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    // The hit it could not send is kept for the next exchange.
    expect(limiter.peek('k').used).toBe(2);

    await proxy.up();
    const back = performance.now();
    let listed = await Promise.allSettled([pets.list({ limit: 10 })]);
    while (listed[0]!.status === 'rejected' && performance.now() - back < 3 * TIMEOUT_MS) {
      listed = await Promise.allSettled([pets.list({ limit: 10 })]);
    }
    report('first successful list after the partition healed', Math.round(performance.now() - back));
    expect(listed[0]).toMatchObject({ status: 'fulfilled' });
    expect((listed[0] as PromiseFulfilledResult<unknown[]>).value).toContainEqual(before);
    await limiter.exchange();
    const other = new MongoRateLimiter(connection, 'partition', 100, 60, { exchangeEveryMs: 3_600_000 });
    try {
      other.hit('k');
      await other.exchange();
      // Both hits reached the store: the one sent before and the one kept through the partition.
      expect(other.peek('k').used).toBeGreaterThanOrEqual(3);
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
    server = await startTestServer({ storage: 'mongodb', mongodb: { ...settings, url: proxy.url, timeoutMs: TIMEOUT_MS } });
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
      report(what, ms);
      expect(result.status, what).toBe('fulfilled');
      const response = (result as PromiseFulfilledResult<Awaited<ReturnType<TestServer['request']>>>).value;
      expect(response.status, what).toBe(503);
      expect(response.json, what).toMatchObject({ code: 'storage_unavailable' });
      expect(ms, what).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }
  });
});
