import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdempotencyClaim } from '../../src/ports/idempotency-store.js';
import { MongoConnection, type MongoSettings } from '../../src/adapters/mongo/connect-mongo.js';
import { createIndexes } from '../../src/adapters/mongo/mongo-indexes.js';
import { MongoIdempotencyStore } from '../../src/adapters/mongo/mongo-idempotency-store.js';
import { StorageUnavailable } from '../../src/core/errors.js';
import { idempotencyStoreContract } from '../contract/idempotency-store-contract.js';
import { dropTestDatabase, freshMongoSettings, rawClient } from '../support/mongo-test-db.js';

/** A store on its own connection, as a service instance would have. */
function openStore(settings: MongoSettings) {
  const connection = new MongoConnection(settings, createIndexes);
  return { connection, store: new MongoIdempotencyStore(connection) };
}

idempotencyStoreContract('MongoIdempotencyStore', async () => {
  const settings = freshMongoSettings('idem');
  const { connection, store } = openStore(settings);
  return {
    store,
    close: async () => {
      await store.close();
      await connection.close();
      await dropTestDatabase(settings);
    },
  };
});

// In the future, so that a real mongod's TTL monitor leaves these records alone during the test.
const T0 = Date.UTC(2030, 0, 1);
const claimOf = (key: string, now = T0, fingerprint = 'fp'): IdempotencyClaim => ({ key, fingerprint, now, ttlMs: 3_600_000, leaseMs: 60_000 });

describe('MongoIdempotencyStore, several instances on one database', () => {
  const settings = freshMongoSettings('idem-shared');
  const instances = [openStore(settings), openStore(settings)] as const;
  let client: MongoClient;

  beforeAll(async () => {
    client = await rawClient(settings);
  });
  afterAll(async () => {
    await client.close();
    await Promise.all(instances.map(({ connection }) => connection.close()));
    await dropTestDatabase(settings);
  });

  it('hands a key to exactly one of 60 claimants spread over two instances', async () => {
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => instances[i % 2]!.store.claim(claimOf('shared'))));
    expect(results.filter((result) => result === undefined)).toHaveLength(1);
    expect(results.filter((result) => result?.state === 'in_progress')).toHaveLength(59);
  });

  it.each([
    ['an expired record', 'expired', 3_600_001],
    ['an abandoned claim', 'abandoned', 60_001],
  ])('lets exactly one of 60 concurrent takers take over %s', async (_, key, later) => {
    expect(await instances[0].store.claim(claimOf(key))).toBeUndefined();
    if (key === 'expired') await instances[0].store.complete(key, { status: 201, body: '{}' });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => instances[i % 2]!.store.claim(claimOf(key, T0 + later, 'new'))),
    );
    expect(results.filter((result) => result === undefined)).toHaveLength(1);
    expect(results.filter((result) => result !== undefined)).toEqual(Array(59).fill({ state: 'in_progress', fingerprint: 'new' }));
  });

  it('keeps a completed record replaying when another instance releases or completes the key', async () => {
    await instances[0].store.claim(claimOf('kept'));
    await instances[0].store.complete('kept', { status: 201, location: '/v1/pets/1', body: '{"id":1}' });
    await instances[1].store.release('kept');
    await instances[1].store.complete('kept', { status: 500, body: '{}' });
    expect(await instances[1].store.claim(claimOf('kept'))).toEqual({
      state: 'done',
      fingerprint: 'fp',
      response: { status: 201, location: '/v1/pets/1', body: '{"id":1}' },
    });
  });

  it('does not let a slow owner complete or release the claim that took over its key', async () => {
    await instances[0].store.claim(claimOf('slow'));
    expect(await instances[1].store.claim(claimOf('slow', T0 + 60_001, 'new'))).toBeUndefined();
    await instances[0].store.complete('slow', { status: 201, body: '{"id":3}' });
    expect(await instances[1].store.claim(claimOf('slow', T0 + 60_002, 'new'))).toEqual({ state: 'in_progress', fingerprint: 'new' });
    await instances[0].store.claim(claimOf('slow-2'));
    expect(await instances[1].store.claim(claimOf('slow-2', T0 + 60_001, 'new'))).toBeUndefined();
    await instances[0].store.release('slow-2');
    expect(await instances[1].store.claim(claimOf('slow-2', T0 + 60_002, 'new'))).toEqual({ state: 'in_progress', fingerprint: 'new' });
  });

  it('stores one document per key with Date expiry fields under a TTL index', async () => {
    await instances[0].store.claim(claimOf('shape'));
    await instances[0].store.complete('shape', { status: 201, body: '{"id":2}' });
    const keys = client.db(settings.db).collection<{ _id: string }>('idempotency_keys');
    const document = await keys.findOne({ _id: 'shape' });
    expect(document).toEqual({
      _id: 'shape',
      claimId: expect.any(String),
      fingerprint: 'fp',
      state: 'done',
      expiresAt: new Date(T0 + 3_600_000),
      leaseEndsAt: new Date(T0 + 60_000),
      response: { status: 201, body: '{"id":2}' },
    });
    const ttl = (await keys.indexes()).find((index) => index.name === 'expiresAt_ttl');
    expect(ttl?.key).toEqual({ expiresAt: 1 });
    expect(Number(ttl?.expireAfterSeconds)).toBe(0);
  });

  it('answers StorageUnavailable for every operation once its connection is closed', async () => {
    const closing = openStore(settings);
    await closing.store.claim(claimOf('closing'));
    await closing.store.claim(claimOf('closing-2'));
    await closing.connection.close();
    await expect(closing.store.claim(claimOf('closing-3'))).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(closing.store.complete('closing', { status: 201, body: '{}' })).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(closing.store.release('closing-2')).rejects.toBeInstanceOf(StorageUnavailable);
  });
});
