import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { MongoConnection } from '../../src/adapters/mongo/connect-mongo.js';
import { createIndexes } from '../../src/adapters/mongo/mongo-indexes.js';
import { MongoRateLimiter, mongoRateLimits } from '../../src/adapters/mongo/mongo-rate-limiter.js';
import { clockAtWindowStart } from '../support/fake-clock.js';
import { dropTestDatabase, freshMongoSettings, rawClient } from '../support/mongo-test-db.js';
import { createTcpProxy } from '../support/tcp-proxy.js';

const settings = freshMongoSettings('limits');
const connections: MongoConnection[] = [];
const open = (overrides = {}) => {
  const connection = new MongoConnection({ ...settings, ...overrides }, createIndexes);
  connections.push(connection);
  return connection;
};
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await dropTestDatabase(settings);
});

// The RateLimiter contract runs on every registered backend (test/contract/storage-backends.test.ts); here, the
// exchanges between instances, driven by hand with a long exchange period.

describe('MongoRateLimiter across instances', () => {
  const clock = clockAtWindowStart();
  const limiterOn = (connection: MongoConnection, name = 'shared') =>
    new MongoRateLimiter(connection, name, 5, 60, { exchangeEveryMs: 3_600_000, now: () => clock.now() });

  it('shares counts through one collection once both instances have exchanged', async () => {
    const [a, b] = [limiterOn(open()), limiterOn(open())];
    try {
      a.hit('k');
      a.hit('k');
      a.hit('k');
      expect(b.hit('k').used).toBe(1);
      await a.exchange();
      await b.exchange();
      expect(b.peek('k').used).toBe(4);
      await a.exchange();
      expect(a.peek('k').used).toBe(4);
      expect(b.hit('k').used).toBe(5);
      const client = await rawClient(settings);
      try {
        const windows = client.db(settings.db).collection('rate_limit_windows');
        const documents = await windows.find({ _id: { $regex: /^shared:k:/ } } as never).toArray();
        expect(documents.map((document) => Number(document.count))).toEqual([4]);
        const indexes = await windows.indexes();
        expect(Number(indexes.find((index) => index.name === 'expiresAt_ttl')?.expireAfterSeconds)).toBe(0);
      } finally {
        await client.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('counts without waiting while MongoDB is down, and sends the hits it kept once it is back', async () => {
    const proxy = await createTcpProxy(inject('mongoUrl'));
    const limiter = limiterOn(open({ url: proxy.url, timeoutMs: 1000 }), 'outage');
    const observer = limiterOn(open(), 'outage');
    try {
      await proxy.up();
      limiter.hit('down');
      await limiter.exchange();
      await proxy.down();
      const started = performance.now();
      const during = [limiter.hit('down'), limiter.hit('down')].map((use) => use.used);
      const ms = performance.now() - started;
      process.stderr.write(`[limits] 2 hits while MongoDB is down: ${ms.toFixed(3)} ms (${inject('mongoKind')})\n`);
      expect(during).toEqual([2, 3]);
      expect(ms).toBeLessThan(50);
      await limiter.exchange();
      await proxy.up();
      observer.hit('down');
      // The driver finds the server again on its own schedule; exchanges go on failing until it has.
      await vi.waitFor(
        async () => {
          await limiter.exchange();
          await observer.exchange();
          expect(observer.peek('down').used).toBe(4);
        },
        { timeout: 10_000, interval: 200 },
      );
    } finally {
      await Promise.all([limiter.close(), observer.close()]);
      await proxy.down();
    }
  });

  it('turns every limit off with a quota of 0', () => {
    expect(mongoRateLimits(open(), { perMinute: 0, authFailuresPerMinute: 2 })).toEqual({});
  });
});
