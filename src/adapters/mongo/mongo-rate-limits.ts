import type { Db, Document, MongoClient } from 'mongodb';
import { RateLimiterMemory, RateLimiterMongo } from 'rate-limiter-flexible';
import { AuthFailureLimit, type RateLimitSettings, type RateLimits } from '../http/rate-limits.js';
import { collectionOf } from './collection-cache.js';
import type { MongoConnection } from './connect-mongo.js';

const TABLE = 'rate_limits';
// A limiter call gives up after this and counts in memory instead, so an outage costs a request this
// long in the limiter, not the whole MONGODB_TIMEOUT_MS on top of the storage call's own.
const LIMITER_DEADLINE_MS = 500;

/** Idempotent. The indexes RateLimiterMongo would create itself: TTL on `expire`, unique `key`. */
export async function createRateLimitIndexes(db: Db): Promise<void> {
  const limits = db.collection(TABLE);
  await Promise.all([
    limits.createIndex({ expire: -1 }, { name: 'expire_-1', expireAfterSeconds: 0 }),
    limits.createIndex({ key: 1 }, { name: 'key_1', unique: true }),
  ]);
}

/**
 * Limits counted in MongoDB (STORAGE=mongodb), so they hold across instances: one collection, the
 * limiter's name as key prefix. When MongoDB fails, each limiter counts in this process's memory.
 */
export function mongoRateLimits(connection: MongoConnection, settings: RateLimitSettings): RateLimits {
  if (settings.perMinute === 0) return {};
  const limiter = (name: string, points: number) =>
    new RateLimiterMongo({
      storeClient: reconnectingClient(connection, Math.min(LIMITER_DEADLINE_MS, connection.settings.timeoutMs)),
      dbName: connection.settings.db,
      tableName: TABLE,
      keyPrefix: name,
      points,
      duration: 60,
      // Its own creation is fire-and-forget at construction (console.error on failure, never retried);
      // createRateLimitIndexes runs on every (re)connection instead.
      disableIndexesCreation: true,
      insuranceLimiter: new RateLimiterMemory({ points, duration: 60 }),
    });
  return {
    perKey: { name: 'per-key', limiter: limiter('per-key', settings.perMinute) },
    authFailures: new AuthFailureLimit('auth-failures', limiter('auth-failures', settings.authFailuresPerMinute)),
  };
}

/**
 * What RateLimiterMongo uses of a client (`db(name).collection(name)` and three collection methods),
 * resolved at each call. The limiter binds to the client it is given once, at construction, but the
 * connection may have no client yet (MongoDB down at start-up) or replace it (driver 7 closes a client
 * whose first connect failed). A Promise of a client is no better: the library never handles its rejection.
 */
function reconnectingClient(connection: MongoConnection, deadlineMs: number) {
  return {
    db: (dbName: string) => ({
      collection: (table: string) => {
        const call =
          (method: 'findOneAndUpdate' | 'findOne' | 'deleteOne') =>
          (...args: unknown[]): Promise<unknown> =>
            withDeadline(
              connection.client().then((client) => {
                const collection = collectionOf<Document>(databaseOf(client, dbName), table) as unknown as Record<
                  typeof method,
                  (...a: unknown[]) => Promise<unknown>
                >;
                return collection[method](...args);
              }),
              deadlineMs,
            );
        return { findOneAndUpdate: call('findOneAndUpdate'), findOne: call('findOne'), deleteOne: call('deleteOne') };
      },
    }),
  };
}

const databases = new WeakMap<MongoClient, Db>();

function databaseOf(client: MongoClient, name: string): Db {
  let db = databases.get(client);
  if (db === undefined || db.databaseName !== name) {
    db = client.db(name);
    databases.set(client, db);
  }
  return db;
}

function withDeadline<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Rate limit store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([operation, deadline]).finally(() => clearTimeout(timer));
}
