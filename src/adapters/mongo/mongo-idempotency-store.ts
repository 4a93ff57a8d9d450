import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { StorageUnavailable } from '../../core/errors.js';
import type {
  IdempotencyClaim,
  IdempotencyRecord,
  IdempotencyStore,
  StoredResponse,
} from '../../ports/idempotency-store.js';
import { collectionOf } from './collection-cache.js';
import type { MongoConnection } from './connect-mongo.js';

/** One claimed key. `claimId` names this one claim, so a takeover can match exactly the stale record it read. */
interface IdempotencyDocument {
  readonly _id: string;
  readonly claimId: string;
  readonly fingerprint: string;
  readonly state: 'in_progress' | 'done';
  readonly expiresAt: Date;
  readonly leaseEndsAt: Date;
  readonly response?: StoredResponse;
}

const KEYS = 'idempotency_keys';
const DUPLICATE_KEY = 11000;
// Each round ends in a win, a live record, or a lost race against another claimant that changed the record.
const MAX_CLAIM_ROUNDS = 10;
// Completing and releasing finish a request whose claim was admitted; a refusal would leave its key blocked.
const FOLLOW_UP = { admitted: true } as const;

/** Idempotent. TTL deletion is lazy (a pass every 60 s), so expiry is also checked on every read. */
export async function createIdempotencyIndexes(db: Db): Promise<void> {
  await keys(db).createIndex({ expiresAt: 1 }, { name: 'expiresAt_ttl', expireAfterSeconds: 0 });
}

/**
 * Idempotency records in MongoDB (STORAGE=mongodb), shared by every instance on the database. A claim
 * is an insert on the unique `_id`; a stale record (expired, or a claim whose lease ended) is taken over
 * with a replace conditioned on that very claim, so of two takers only one wins.
 */
export class MongoIdempotencyStore implements IdempotencyStore {
  /** The claims this instance holds, so that a slow owner whose lease ended cannot touch the claim that replaced it. */
  private readonly owned = new Map<string, string>();

  constructor(
    private readonly connection: MongoConnection,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  async claim(claim: IdempotencyClaim): Promise<IdempotencyRecord | undefined> {
    const fresh: IdempotencyDocument = {
      _id: claim.key,
      claimId: randomUUID(),
      fingerprint: claim.fingerprint,
      state: 'in_progress',
      expiresAt: new Date(claim.now + claim.ttlMs),
      leaseEndsAt: new Date(claim.now + claim.leaseMs),
    };
    // Every round shares the one timeout.
    return this.storage(async (db, signal) => {
      for (let round = 1; round <= MAX_CLAIM_ROUNDS; round++) {
        if (await insertUnlessTaken(db, fresh)) return this.own(fresh);
        const existing = await keys(db).findOne({ _id: { $eq: claim.key } }, { signal });
        // Gone since the insert failed (released, or deleted by TTL): try the insert again.
        if (existing === null) continue;
        if (isLive(existing, claim.now)) return toRecord(existing);
        const { matchedCount } = await keys(db).replaceOne({ _id: { $eq: claim.key }, claimId: { $eq: existing.claimId } }, fresh);
        if (matchedCount === 1) return this.own(fresh);
      }
      throw new Error(`Idempotency key still contended after ${MAX_CLAIM_ROUNDS} rounds`);
    });
  }

  async complete(key: string, response: StoredResponse): Promise<void> {
    const stored = response.location === undefined
      ? { status: response.status, body: response.body }
      : { status: response.status, location: response.location, body: response.body };
    const filter = this.ownClaim(key);
    if (filter !== undefined) await this.storage((db) => keys(db).updateOne(filter, { $set: { state: 'done', response: stored } }), FOLLOW_UP);
  }

  async release(key: string): Promise<void> {
    const filter = this.ownClaim(key);
    if (filter !== undefined) await this.storage((db) => keys(db).deleteOne(filter), FOLLOW_UP);
  }

  /** No timers or clients of its own: the connection is closed by whoever opened it. */
  async close(): Promise<void> {}

  private own(document: IdempotencyDocument): undefined {
    this.owned.set(document._id, document.claimId);
    return undefined;
  }

  /** A filter for this instance's unfinished claim on the key, which it forgets; undefined when it holds none. */
  private ownClaim(key: string) {
    const claimId = this.owned.get(key);
    this.owned.delete(key);
    return claimId === undefined ? undefined : { _id: { $eq: key }, claimId: { $eq: claimId }, state: { $eq: 'in_progress' as const } };
  }

  /** Runs driver calls within the timeout; whatever they throw leaves this adapter as StorageUnavailable. */
  private async storage<T>(operation: (db: Db, signal: AbortSignal) => Promise<T>, options?: { readonly admitted: boolean }): Promise<T> {
    try {
      return await this.connection.run(operation, options);
    } catch (error) {
      this.onFailure(error);
      throw new StorageUnavailable({ cause: error });
    }
  }
}

function keys(db: Db): Collection<IdempotencyDocument> {
  return collectionOf<IdempotencyDocument>(db, KEYS);
}

/** False when a record with this key exists already. */
async function insertUnlessTaken(db: Db, document: IdempotencyDocument): Promise<boolean> {
  try {
    await keys(db).insertOne(document);
    return true;
  } catch (error) {
    if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY) return false;
    throw error;
  }
}

function isLive(document: IdempotencyDocument, now: number): boolean {
  return document.state === 'done' ? now < document.expiresAt.getTime() : now < document.leaseEndsAt.getTime();
}

/** Field by field: nothing but the port's record leaves the adapter. */
function toRecord(document: IdempotencyDocument): IdempotencyRecord {
  const { fingerprint, state, response } = document;
  if (state === 'in_progress') return { state, fingerprint };
  if (response === undefined || typeof response.status !== 'number' || typeof response.body !== 'string') {
    throw new Error(`The idempotency record ${document._id} is malformed`);
  }
  const replay = { status: response.status, body: response.body };
  return { state, fingerprint, response: typeof response.location === 'string' ? { ...replay, location: response.location } : replay };
}
