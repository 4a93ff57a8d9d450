import type { Collection, Db } from 'mongodb';
import { IdempotencyKeyReused, StorageUnavailable } from '../../core/errors.js';
import type { NewPet, Pet, PetId } from '../../core/pet.js';
import type { Added, IdempotentCreate, PetListQuery, PetRepository } from '../../ports/pet-repository.js';
import { collectionOf } from './collection-cache.js';
import type { MongoConnection } from './connect-mongo.js';
import { IDEMPOTENCY_FIELDS, KnownPets, type PetDocument, toPet, toPetDocument } from './pet-document.js';

interface CounterDocument {
  readonly _id: string;
  readonly seq: bigint;
}

const PETS = 'pets';
const COUNTERS = 'counters';
const PET_IDS = 'pets';
const DUPLICATE_KEY = 11000;
const IDEMPOTENCY_KEY_INDEX = 'idempotencyKey_1';
// Each attempt takes a fresh id; a collision needs another writer to have taken the same one.
const MAX_ADD_ATTEMPTS = 25;
const PING_TIMEOUT_MS = 1000;

/**
 * Idempotent. Status-filtered pages walk the first index in id order; everything else uses `_id`'s own index.
 * The second makes an idempotency key name one pet; partial, so pets added without a key are not indexed at all.
 * The previous release's `creationKey_1` is left as it is: its instances may still be serving (a rolling deploy),
 * and it indexes no pet this release stores.
 */
export async function createPetIndexes(db: Db): Promise<void> {
  const collection = db.collection<PetDocument>(PETS);
  await Promise.all([
    collection.createIndex({ status: 1, _id: 1 }, { name: 'status_1__id_1' }),
    collection.createIndex(
      { idempotencyKey: 1 },
      { name: IDEMPOTENCY_KEY_INDEX, unique: true, partialFilterExpression: { idempotencyKey: { $exists: true } } },
    ),
  ]);
}

/**
 * Pets in MongoDB, one document per pet with the id as `_id` (BSON int64). Ids come from an atomic
 * counter document; the unique `_id` is the real guard, so a duplicate from a misbehaving counter
 * costs a retry with a fresh id, never a lost or overwritten pet. An idempotency key is stored on the pet's
 * own document under a unique index, so "this request's pet exists" and the pet are one write: no
 * transaction is needed (a standalone mongod has none), a keyed add costs no more round trips than another,
 * and an add whose answer was lost leaves a pet that the next add with the same key finds.
 */
export class MongoPetRepository implements PetRepository {
  private readonly known = new KnownPets();

  constructor(
    private readonly connection: MongoConnection,
    private readonly onFailure: (error: unknown) => void = () => {},
    /** Told each time an id from the counter was taken already, before add retries with a fresh one. */
    private readonly onIdTaken: (id: PetId) => void = () => {},
  ) {}

  async add(newPet: NewPet): Promise<Pet> {
    return (await this.insert(newPet)).pet;
  }

  async addOnce(newPet: NewPet, idempotency: IdempotentCreate): Promise<Added> {
    // Decided by what the store holds, so thrown outside storage(), where every failure is an outage.
    const outcome = await this.insert(newPet, idempotency);
    if (outcome === 'key_reused') throw new IdempotencyKeyReused();
    return outcome;
  }

  /**
   * The counter round trip and the insert (and any retry) share one timeout. A new idempotency key costs no
   * extra round trip; a used one costs the failed insert and one read of the pet it names (and, when that
   * key has expired for another body, the update that takes it from that pet and the insert again).
   */
  private insert(newPet: NewPet): Promise<Added>;
  private insert(newPet: NewPet, idempotency: IdempotentCreate): Promise<Added | 'key_reused'>;
  private async insert(newPet: NewPet, idempotency?: IdempotentCreate): Promise<Added | 'key_reused'> {
    // Checked before any round trip, so that an invalid pet is a RangeError here rather than a 503.
    toPetDocument(0n, newPet, idempotency);
    return this.storage(async (db, signal) => {
      let id = await nextPetId(db);
      for (let attempt = 1; attempt <= MAX_ADD_ATTEMPTS; attempt++) {
        const document = toPetDocument(id, newPet, idempotency);
        const outcome = await insertPet(db, document);
        if (outcome === 'inserted') return { pet: this.known.remember(toPet(document)), replayed: false };
        if (outcome === 'key_used' && idempotency !== undefined) {
          // The id is still free (the insert wrote nothing); it is tried again once the key is.
          const replay = await replayOrFreeKey(db, idempotency, signal);
          if (replay !== undefined) return replay;
          continue;
        }
        this.onIdTaken(id);
        await counterPastHighestId(db, signal);
        id = await nextPetId(db);
      }
      throw new Error(`No free pet id after ${MAX_ADD_ATTEMPTS} attempts`);
    });
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    // Plain equality, the form a server's _id fast path takes: a bigint can never be read as an operator.
    if (typeof id !== 'bigint') throw new TypeError('A pet id is a bigint');
    const found = await this.storage((db, signal) => pets(db).findOne({ _id: id }, this.readOptions(signal)));
    return found === null ? undefined : this.known.fromDocument(found);
  }

  async list(query: PetListQuery): Promise<Pet[]> {
    const filter = {
      ...(query.status === undefined ? {} : { status: { $eq: query.status } }),
      ...(query.afterId === undefined ? {} : { _id: { $gt: query.afterId } }),
    };
    const found = await this.storage((db, signal) =>
      pets(db).find(filter, this.readOptions(signal)).sort({ _id: 1 }).limit(query.limit).toArray(),
    );
    return found.map((document) => this.known.fromDocument(document));
  }

  async count(): Promise<number> {
    // Collection metadata, not a scan (the port allows an approximate count). A plain command rather than
    // estimatedDocumentCount, which takes no abort signal and so would retry after the deadline.
    const reply = await this.storage((db, signal) => db.command({ count: PETS }, { signal }));
    return Number(reply.n);
  }

  async isReachable(): Promise<boolean> {
    const ping = this.connection
      .db()
      .then((db) => db.command({ ping: 1 }))
      .then(
        () => true,
        () => false,
      );
    // Server selection may wait the full operation timeout; readiness answers sooner.
    const timeout = Math.min(PING_TIMEOUT_MS, this.connection.settings.timeoutMs);
    return Promise.race([ping, new Promise<false>((resolve) => setTimeout(resolve, timeout, false).unref())]);
  }

  /** The server gives up on a read when this adapter does (a slow server, not only a lost one). */
  private readOptions(signal: AbortSignal) {
    return { signal, maxTimeMS: this.connection.settings.timeoutMs };
  }

  /** Runs driver calls within the timeout; whatever they throw leaves this adapter as StorageUnavailable. */
  private async storage<T>(operation: (db: Db, signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await this.connection.run(operation);
    } catch (error) {
      this.onFailure(error);
      throw new StorageUnavailable({ cause: error });
    }
  }
}

function pets(db: Db): Collection<PetDocument> {
  return collectionOf<PetDocument>(db, PETS);
}

function counters(db: Db): Collection<CounterDocument> {
  return collectionOf<CounterDocument>(db, COUNTERS);
}

async function nextPetId(db: Db): Promise<PetId> {
  const increment = () =>
    counters(db).findOneAndUpdate({ _id: PET_IDS }, { $inc: { seq: 1n } }, { upsert: true, returnDocument: 'after' });
  // Two first-ever upserts can race to create the counter; the loser finds it on its second try.
  const counter = await increment().catch((error: unknown) => {
    if (isDuplicateKey(error)) return increment();
    throw error;
  });
  if (counter === null || (typeof counter.seq !== 'bigint' && !Number.isSafeInteger(counter.seq))) {
    throw new Error('The pet id counter document is malformed');
  }
  // Past int64 max, a server either refuses the $inc or wraps it to a negative number.
  if (counter.seq < 1n) throw new Error('Pet ids are exhausted');
  return BigInt(counter.seq);
}

/** Which unique index, if any, refused the document. */
async function insertPet(db: Db, document: PetDocument): Promise<'inserted' | 'id_taken' | 'key_used'> {
  try {
    await pets(db).insertOne(document);
    return 'inserted';
  } catch (error) {
    if (isDuplicateIdempotencyKey(error)) return 'key_used';
    if (isDuplicateKey(error)) return 'id_taken';
    throw error;
  }
}

/**
 * For an add whose key another pet holds: that pet (replayed) when it was made from the same fingerprint, at any
 * age; 'key_reused' while the key is live; else undefined once the key is free: the expired key taken
 * from that pet, by this add or (the filter names the holder and its expiry) a concurrent one.
 */
async function replayOrFreeKey(
  db: Db,
  { key, fingerprint, now }: IdempotentCreate,
  signal: AbortSignal,
): Promise<Added | 'key_reused' | undefined> {
  const holder = await pets(db).findOne({ idempotencyKey: { $eq: key } }, { signal });
  if (holder === null) return undefined;
  if (holder.idempotencyFingerprint === fingerprint) return { pet: toPet(holder), replayed: true };
  if (holder.idempotencyExpiresAt === undefined || holder.idempotencyExpiresAt.getTime() > now) return 'key_reused';
  const expired = { _id: holder._id, idempotencyKey: { $eq: key }, idempotencyExpiresAt: { $lte: new Date(now) } };
  await pets(db).updateOne(expired, { $unset: IDEMPOTENCY_FIELDS });
  return undefined;
}

/** Moves the counter past the highest stored id, in case it lags behind (restored or imported data). */
async function counterPastHighestId(db: Db, signal: AbortSignal): Promise<void> {
  const [highest] = await pets(db).find({}, { projection: { _id: 1 }, signal }).sort({ _id: -1 }).limit(1).toArray();
  // A conditional $set rather than $max, which jongodb lacks; the filter keeps it from ever lowering the counter.
  if (highest !== undefined) await counters(db).updateOne({ _id: PET_IDS, seq: { $lt: highest._id } }, { $set: { seq: highest._id } });
}

function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

// mongod names the index in keyPattern and in the message; jongodb only in the message.
function isDuplicateIdempotencyKey(error: unknown): boolean {
  if (!isDuplicateKey(error)) return false;
  const { keyPattern, message } = error as { keyPattern?: unknown; message?: unknown };
  if (typeof keyPattern === 'object' && keyPattern !== null) return 'idempotencyKey' in keyPattern;
  return typeof message === 'string' && message.includes(`index: ${IDEMPOTENCY_KEY_INDEX} dup key`);
}
