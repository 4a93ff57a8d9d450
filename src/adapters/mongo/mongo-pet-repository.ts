import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { IdempotencyKeyReused, StorageUnavailable } from '../../core/errors.js';
import type { NewPet, Pet, PetId } from '../../core/pet.js';
import type { Added, IdempotentCreate, PetListQuery, PetRepository } from '../../ports/pet-repository.js';
import { collectionOf } from './collection-cache.js';
import type { MongoConnection } from './connect-mongo.js';
import { IDEMPOTENCY_FIELDS, KnownPets, type PetDocument, sameDocument, storedId, toPet, toPetDocument } from './pet-document.js';
import { batches } from './batches.js';

/** One add as the batch of creates sees it. */
interface Create {
  readonly newPet: NewPet;
  readonly idempotency?: IdempotentCreate;
}

type InsertOutcome = 'inserted' | 'id_taken' | 'key_used' | Error;

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
  private readonly byId: (id: PetId) => Promise<PetDocument | undefined>;
  private readonly pages: (query: PetListQuery) => Promise<readonly PetDocument[]>;
  private readonly creates: (create: Create) => Promise<Added | 'key_reused'>;

  constructor(
    private readonly connection: MongoConnection,
    private readonly onFailure: (error: unknown) => void = () => {},
    /** Told each time an id from the counter was taken already, before add retries with a fresh one. */
    private readonly onIdTaken: (id: PetId) => void = () => {},
  ) {
    const waitAtMost = connection.settings.timeoutMs;
    this.byId = batches((ids) => this.findAll(ids), waitAtMost);
    this.pages = batches((queries) => this.listAll(queries), waitAtMost);
    this.creates = batches((creates) => this.createAll(creates), waitAtMost);
  }

  async add(newPet: NewPet): Promise<Pet> {
    return (await this.insert({ newPet })).pet;
  }

  async addOnce(newPet: NewPet, idempotency: IdempotentCreate): Promise<Added> {
    // Decided by what the store holds, so thrown outside storage(), where every failure is an outage.
    const outcome = await this.insert({ newPet, idempotency });
    if (outcome === 'key_reused') throw new IdempotencyKeyReused();
    return outcome;
  }

  private insert(create: { newPet: NewPet }): Promise<Added>;
  private insert(create: Create): Promise<Added | 'key_reused'>;
  private insert(create: Create): Promise<Added | 'key_reused'> {
    // Checked before any round trip, so that an invalid pet is a RangeError here rather than a 503.
    toPetDocument(0n, create.newPet, create.idempotency);
    return this.creates(create);
  }

  /**
   * A batch of creates, in the same two round trips as one alone: the counter reserves an id for each, one
   * unordered insert stores them all, and the batch shares one timeout. A new idempotency key costs nothing
   * more; a used one costs its pet a read of the pet the key names.
   */
  private createAll(batch: readonly Create[]): Promise<(Added | 'key_reused' | Error)[]> {
    return this.storage(async (db, signal) => {
      const lastId = await nextPetIds(db, batch.length);
      const documents = batch.map(({ newPet, idempotency }, i) => toPetDocument(lastId - BigInt(batch.length - 1 - i), newPet, idempotency));
      const outcomes = await insertPets(db, documents, signal);
      return Promise.all(
        batch.map((create, i) => this.settle(db, signal, create, documents[i]!, outcomes[i]!).catch((error: unknown) => this.unavailable(error))),
      );
    });
  }

  /**
   * One create after its first insert: stored, or, when a unique index refused it, what that index means. A used
   * idempotency key is a replay, a 422, or (expired for another body) taken from its pet, and the insert tried
   * again with the same id, which the refused insert left free; a taken id gets a fresh one.
   */
  private async settle(db: Db, signal: AbortSignal, { newPet, idempotency }: Create, first: PetDocument, firstOutcome: InsertOutcome): Promise<Added | 'key_reused'> {
    let document = first;
    let outcome = firstOutcome;
    for (let attempt = 1; attempt <= MAX_ADD_ATTEMPTS; attempt++) {
      if (outcome instanceof Error) throw outcome;
      if (outcome === 'inserted') return { pet: this.known.remember(toPet(document)), replayed: false };
      if (outcome === 'key_used' && idempotency !== undefined) {
        const replay = await replayOrFreeKey(db, idempotency, signal);
        if (replay !== undefined) return replay;
      } else {
        this.onIdTaken(document._id);
        await counterPastHighestId(db, signal);
        document = toPetDocument(await nextPetIds(db, 1), newPet, idempotency);
      }
      outcome = (await insertPets(db, [document], signal))[0]!;
    }
    throw new Error(`No free pet id after ${MAX_ADD_ATTEMPTS} attempts`);
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    // A bigint can never be read as an operator in the filter.
    if (typeof id !== 'bigint') throw new TypeError('A pet id is a bigint');
    const found = await this.byId(id);
    return found === undefined ? undefined : this.known.fromDocument(found);
  }

  async list(query: PetListQuery): Promise<Pet[]> {
    return (await this.pages(query)).map((document) => this.known.fromDocument(document));
  }

  /** A batch of gets: one find of all their ids. */
  private async findAll(ids: readonly PetId[]): Promise<(PetDocument | undefined)[]> {
    const wanted = [...new Set(ids)];
    // One id alone as a plain equality: the form a server's _id fast path takes.
    const filter = wanted.length === 1 ? { _id: wanted[0]! } : { _id: { $in: wanted } };
    const found = await this.storage((db, signal) => pets(db).find(filter, this.readOptions(signal)).limit(wanted.length).toArray());
    const byId = new Map(found.map((document) => [storedId(document), document]));
    return ids.map((id) => byId.get(id));
  }

  /** A batch of lists: one find per different query, its page handed to every request that asked for it. */
  private listAll(queries: readonly PetListQuery[]): Promise<(readonly PetDocument[] | Error)[]> {
    const keys = queries.map(queryKey);
    const found = new Map<string, Promise<readonly PetDocument[] | Error>>();
    keys.forEach((key, i) => {
      if (!found.has(key)) found.set(key, this.findPage(queries[i]!).catch((error: Error) => error));
    });
    return Promise.all(keys.map((key) => found.get(key)!));
  }

  private findPage({ limit, status, afterId }: PetListQuery): Promise<PetDocument[]> {
    const filter = {
      ...(status === undefined ? {} : { status: { $eq: status } }),
      ...(afterId === undefined ? {} : { _id: { $gt: afterId } }),
    };
    return this.storage((db, signal) => pets(db).find(filter, this.readOptions(signal)).sort({ _id: 1 }).limit(limit).toArray());
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
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): StorageUnavailable {
    this.onFailure(error);
    return new StorageUnavailable({ cause: error });
  }
}

function queryKey({ limit, status, afterId }: PetListQuery): string {
  return `${limit} ${status ?? ''} ${afterId ?? ''}`;
}

function pets(db: Db): Collection<PetDocument> {
  return collectionOf<PetDocument>(db, PETS);
}

function counters(db: Db): Collection<CounterDocument> {
  return collectionOf<CounterDocument>(db, COUNTERS);
}

/** Reserves `count` ids from the counter: the last of them is returned, the others are the ones before it. */
async function nextPetIds(db: Db, count: number): Promise<PetId> {
  const increment = () =>
    counters(db).findOneAndUpdate({ _id: PET_IDS }, { $inc: { seq: BigInt(count) } }, { upsert: true, returnDocument: 'after' });
  // Two first-ever upserts can race to create the counter; the loser finds it on its second try.
  const counter = await increment().catch((error: unknown) => {
    if (isDuplicateKey(error)) return increment();
    throw error;
  });
  if (counter === null || (typeof counter.seq !== 'bigint' && !Number.isSafeInteger(counter.seq))) {
    throw new Error('The pet id counter document is malformed');
  }
  // Past int64 max, a server either refuses the $inc or wraps it to a negative number.
  if (counter.seq < BigInt(count)) throw new Error('Pet ids are exhausted');
  return BigInt(counter.seq);
}

/** What became of each document of one unordered insert: stored, refused by a unique index, or another write error. */
async function insertPets(db: Db, documents: readonly PetDocument[], signal: AbortSignal): Promise<InsertOutcome[]> {
  try {
    await pets(db).insertMany(documents, { ordered: false });
    return documents.map(() => 'inserted');
  } catch (error) {
    // Without per-document answers (a lost connection, a write concern not met) nothing says what was stored.
    if (!(error instanceof MongoBulkWriteError) || error.result.getWriteConcernError() !== undefined) throw error;
    const refused = new Map([error.writeErrors].flat().map((writeError) => [writeError.index, writeError]));
    if (refused.size > 0) {
      return documents.map((_, index) => {
        const writeError = refused.get(index);
        if (writeError === undefined) return 'inserted';
        return writeError.code === DUPLICATE_KEY ? duplicateOf(writeError.errmsg) : new Error(writeError.errmsg ?? `Write error ${writeError.code}`);
      });
    }
    // jongodb refuses a whole insert with one error rather than one per document.
    if (!isDuplicateKey(error)) throw error;
    if (documents.length === 1) return [duplicateOf(error.errmsg)];
    return insertEachUnstored(db, documents, signal);
  }
}

/** After an insert refused as a whole: what of it is stored is found, and each other document inserted alone. */
async function insertEachUnstored(db: Db, documents: readonly PetDocument[], signal: AbortSignal): Promise<InsertOutcome[]> {
  const found = await pets(db).find({ _id: { $in: documents.map((document) => document._id) } }, { signal }).toArray();
  const stored = new Map(found.map((document) => [storedId(document), document]));
  return Promise.all(
    documents.map(async (document) => {
      const holder = stored.get(document._id);
      // Its id was reserved for it: a document with that id and its fields is this one, stored.
      if (holder !== undefined) return sameDocument(holder, document) ? 'inserted' : 'id_taken';
      return (await insertPets(db, [document], signal))[0]!;
    }),
  );
}

// mongod and jongodb both name the refusing index in the message.
function duplicateOf(message: string | undefined): 'key_used' | 'id_taken' {
  return message?.includes(`index: ${IDEMPOTENCY_KEY_INDEX} dup key`) === true ? 'key_used' : 'id_taken';
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

