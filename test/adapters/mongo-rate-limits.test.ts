import net from 'node:net';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createIndexes, MongoConnection } from '../../src/adapters/mongo/connect-mongo.js';
import { mongoRateLimits } from '../../src/adapters/mongo/mongo-rate-limits.js';
import { dropTestDatabase, freshMongoSettings, rawClient } from '../support/mongo-test-db.js';
import { createTcpProxy } from '../support/tcp-proxy.js';

const settings = freshMongoSettings('limits');
const SETTINGS = { perMinute: 3, authFailuresPerMinute: 2 };

/** consume() as the HTTP adapter sees it: a result, or 429 with the result. */
const consume = (limits: ReturnType<typeof mongoRateLimits>, key: string) =>
  limits.perKey!.limiter.consume(key).then(
    (result) => result.consumedPoints,
    (rejection: unknown) => (rejection instanceof RateLimiterRes ? `429 after ${rejection.consumedPoints}` : rejection),
  );

describe('mongoRateLimits', () => {
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

  it('counts in the configured database, one rate_limits collection with its TTL and unique key indexes', async () => {
    const limits = mongoRateLimits(open(), SETTINGS);
    expect([await consume(limits, 'k'), await consume(limits, 'k'), await consume(limits, 'k'), await consume(limits, 'k')]).toEqual([1, 2, 3, '429 after 4']);
    await limits.authFailures!.limiter.penalty('10.0.0.1', 1);
    const client = await rawClient(settings);
    try {
      const collection = client.db(settings.db).collection('rate_limits');
      const keys = (await collection.find({}, { projection: { _id: 0, key: 1, points: 1 } }).sort({ key: 1 }).toArray()).map((doc) => [doc.key, doc.points]);
      expect(keys).toEqual([['auth-failures:10.0.0.1', 1], ['per-key:k', 4]]);
      const indexes = await collection.indexes();
      expect(indexes.find((index) => index.name === 'key_1')).toMatchObject({ key: { key: 1 }, unique: true });
      expect(Number(indexes.find((index) => index.name === 'expire_-1')?.expireAfterSeconds)).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('turns every limit off with a quota of 0', () => {
    expect(mongoRateLimits(open(), { perMinute: 0, authFailuresPerMinute: 2 })).toEqual({});
  });

  it('counts in memory when MongoDB is down', async () => {
    const proxy = await createTcpProxy(inject('mongoUrl'));
    try {
      await proxy.up();
      const connection = open({ url: proxy.url, timeoutMs: 1500 });
      const limits = mongoRateLimits(connection, SETTINGS);
      expect(await consume(limits, 'down')).toBe(1);
      await proxy.down();
      const started = performance.now();
      const during = [await consume(limits, 'down'), await consume(limits, 'down'), await consume(limits, 'down')];
      const ms = Math.round(performance.now() - started);
      process.stderr.write(`[limits] 3 consumes while MongoDB is down: ${ms} ms (${inject('mongoKind')})\n`);
      // The insurance limiter starts from zero: the point counted in MongoDB before the outage is not in it.
      expect(during).toEqual([1, 2, 3]);
      expect(ms).toBeLessThan(3 * 500 + 1000);
    } finally {
      await proxy.up();
      await proxy.down();
    }
  });

  it('gives up on a server that accepts connections but never answers after 500 ms, and counts in memory', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const limits = mongoRateLimits(open({ url: `mongodb://127.0.0.1:${port}/?directConnection=true`, timeoutMs: 1500 }), SETTINGS);
      const started = performance.now();
      expect(await consume(limits, 'silent')).toBe(1);
      const ms = Math.round(performance.now() - started);
      process.stderr.write(`[limits] consume against a silent server: ${ms} ms\n`);
      expect(ms).toBeGreaterThanOrEqual(450);
      expect(ms).toBeLessThan(500 + 1000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
