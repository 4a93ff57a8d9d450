import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { IdempotencyKeyReused, StorageUnavailable } from '../../core/errors.js';
import type { NewPet, Pet, PetId } from '../../core/pet.js';
import type { Added, IdempotentCreate, PetListQuery, PetRepository } from '../../ports/pet-repository.js';
import { collectionOf } from './collection-cache.js';
import { MongoDeadlineExceeded, type MongoConnection } from './connect-mongo.js';
import { IDEMPOTENCY_FIELDS, type PetDocument, sameDocument, storedId, toPet, toPetDocument } from './pet-document.js';
import { batches, type Timed } from './batches.js';

/** One add as a batch of creates sees it. */
interface Create extends Timed {
  readonly newPet: NewPet;
  readonly idempotency?: IdempotentCreate;
  /** Its document to insert as it is (its id is reserved); without one, the create takes a fresh id. */
  readonly document?: PetDocument;
  /** Inserts tried so far. */
  readonly attempts: number;
}

/** What a batch settled for one create: an answer, or the create to try again in a batch of retries. */
type Settled = Added | 'key_reused' | Create;

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
// The share of the timeout a create must have left for its insert to be sent: an insert sent later could land
// after its request was answered 503.
const WRITE_RESERVE = 0.5;

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
 *
 * Every call ends by its request's deadline, settings.timeoutMs from `arrivedAt` (see PetRepository): waiting
 * for its batch, for a slot (admission) and for MongoDB all count.
 */
export class MongoPetRepository implements PetRepository {
  private readonly byId: (key: { id: PetId } & Timed) => Promise<PetDocument | undefined>;
  private readonly pages: (key: { query: PetListQuery } & Timed) => Promise<readonly PetDocument[]>;
  private readonly creates: (create: Create) => Promise<Settled>;
  private readonly retries: (create: Create) => Promise<Settled>;

  constructor(
    private readonly connection: MongoConnection,
    private readonly onFailure: (error: unknown) => void = () => {},
    /** Told each time an id from the counter was taken already, before add retries with a fresh one. */
    private readonly onIdTaken: (id: PetId) => void = () => {},
  ) {
    const waitAtMost = connection.settings.timeoutMs;
    const late = () => new StorageUnavailable({ cause: new MongoDeadlineExceeded(waitAtMost) });
    this.byId = batches((keys, deadline) => this.findAll(keys, deadline), waitAtMost, late);
    this.pages = batches((keys, deadline) => this.listAll(keys, deadline), waitAtMost, late);
    this.creates = batches((batch, deadline) => this.createAll(batch, deadline), waitAtMost, late);
    this.retries = batches((batch, deadline) => this.createAll(batch, deadline), waitAtMost, late);
  }

  async add(newPet: NewPet, arrivedAt?: number): Promise<Pet> {
    return (await this.insert({ newPet, deadline: this.deadlineOf(arrivedAt), attempts: 0 })).pet;
  }

  async addOnce(newPet: NewPet, idempotency: IdempotentCreate, arrivedAt?: number): Promise<Added> {
    // Decided by what the store holds, so thrown outside storage(), where every failure is an outage.
    const outcome = await this.insert({ newPet, idempotency, deadline: this.deadlineOf(arrivedAt), attempts: 0 });
    if (outcome === 'key_reused') throw new IdempotencyKeyReused();
    return outcome;
  }

  private insert(create: Create & { idempotency?: undefined }): Promise<Added>;
  private insert(create: Create): Promise<Added | 'key_reused'>;
  private async insert(create: Create): Promise<Added | 'key_reused'> {
    // Checked before any round trip, so that an invalid pet is a RangeError here rather than a 503.
    toPetDocument(0n, create.newPet, create.idempotency);
    let settled = await this.creates(create);
    while (isCreate(settled)) {
      if (settled.attempts >= MAX_ADD_ATTEMPTS) throw this.unavailable(new Error(`No free pet id after ${MAX_ADD_ATTEMPTS} attempts`));
      settled = await this.retries(settled);
    }
    return settled;
  }

  /**
   * A batch of creates, in the same two round trips as one alone: the counter reserves an id for each, one
   * unordered insert stores them all. A new idempotency key costs nothing more; the used ones cost the batch one
   * read of the pets they name. Creates that a unique index refused come back to be tried again, together, in a
   * batch of retries. No insert is sent for a create whose request has too little time left to see it through.
   */
  private createAll(batch: readonly Create[], deadline: number): Promise<(Settled | Error)[]> {
    const inTime = (create: Create) => create.deadline - performance.now() >= WRITE_RESERVE * this.connection.settings.timeoutMs;
    if (!batch.some(inTime)) return Promise.resolve(batch.map(() => tooLate()));
    return this.storage(async (db, signal) => {
      const documents = await this.documentsOf(db, signal, batch);
      // Checked again after the counter's round trip, right before the insert.
      const sending = batch.map(inTime);
      const sent = documents.filter((_, i) => sending[i]);
      const outcomes = sent.length === 0 ? [] : await insertPets(db, sent, signal);
      const tried = batch.map((create, i) => ({ ...create, document: documents[i]!, attempts: create.attempts + 1 }));
      let next = 0;
      const settled = tried.map((create, i) => (sending[i] ? this.settle(create, outcomes[next++]!) : tooLate()));
      return this.replayed(db, signal, tried, settled);
    }, deadline);
  }

  /** Each create's document: its own, or one with a fresh id (past every stored one when ids were found taken). */
  private async documentsOf(db: Db, signal: AbortSignal, batch: readonly Create[]): Promise<PetDocument[]> {
    const fresh = batch.filter((create) => create.document === undefined);
    if (fresh.length === 0) return batch.map((create) => create.document!);
    if (fresh.some((create) => create.attempts > 0)) await counterPastHighestId(db, signal);
    let id = (await nextPetIds(db, fresh.length)) - BigInt(fresh.length);
    return batch.map(({ document, newPet, idempotency }) => document ?? toPetDocument(++id, newPet, idempotency));
  }

  /** What one insert outcome means for its create: its pet, its failure, or the create to try again. */
  private settle(create: Create & { document: PetDocument }, outcome: InsertOutcome): Settled | Error | 'key_used' {
    const { document } = create;
    if (outcome instanceof Error) return this.unavailable(outcome);
    if (outcome === 'inserted') return { pet: toPet(document), replayed: false };
    if (outcome === 'key_used' && create.idempotency !== undefined) return 'key_used';
    this.onIdTaken(document._id);
    return { ...create, document: undefined };
  }

  /**
   * Settles the creates whose idempotency key another pet holds, with one read of those pets: a replay, a
   * 'key_reused', or (the key was free, or expired and taken from its pet) the same document to insert again;
   * its id was left free by the refused insert.
   */
  private async replayed(db: Db, signal: AbortSignal, tried: readonly Create[], settled: (Settled | Error | 'key_used')[]): Promise<(Settled | Error)[]> {
    const keyed = settled.flatMap((outcome, i) => (outcome === 'key_used' ? [i] : []));
    if (keyed.length === 0) return settled as (Settled | Error)[];
    const found = await replaysOrFreeKeys(db, keyed.map((i) => tried[i]!.idempotency!), signal).catch((error: unknown) => this.unavailable(error));
    return settled.map((outcome, i) => {
      if (outcome !== 'key_used') return outcome;
      if (found instanceof Error) return found;
      return found[keyed.indexOf(i)] ?? tried[i]!;
    });
  }

  async findById(id: PetId, arrivedAt?: number): Promise<Pet | undefined> {
    // A bigint can never be read as an operator in the filter.
    if (typeof id !== 'bigint') throw new TypeError('A pet id is a bigint');
    const found = await this.byId({ id, deadline: this.deadlineOf(arrivedAt) });
    return found === undefined ? undefined : toPet(found);
  }

  async list(query: PetListQuery, arrivedAt?: number): Promise<Pet[]> {
    return (await this.pages({ query, deadline: this.deadlineOf(arrivedAt) })).map(toPet);
  }

  /** A batch of gets: one find of all their ids. */
  private async findAll(keys: readonly { id: PetId }[], deadline: number): Promise<(PetDocument | undefined)[]> {
    const wanted = [...new Set(keys.map((key) => key.id))];
    // One id alone as a plain equality: the form a server's _id fast path takes.
    const filter = wanted.length === 1 ? { _id: wanted[0]! } : { _id: { $in: wanted } };
    const found = await this.storage((db, signal) => pets(db).find(filter, this.readOptions(signal)).limit(wanted.length).toArray(), deadline);
    const byId = new Map(found.map((document) => [storedId(document), document]));
    return keys.map((key) => byId.get(key.id));
  }

  /** A batch of lists: one find per different query, its page handed to every request that asked for it. */
  private listAll(keys: readonly { query: PetListQuery }[], deadline: number): Promise<(readonly PetDocument[] | Error)[]> {
    const found = new Map<string, Promise<readonly PetDocument[] | Error>>();
    const pages = keys.map(({ query }) => {
      const key = queryKey(query);
      if (!found.has(key)) found.set(key, this.findPage(query, deadline).catch((error: Error) => error));
      return found.get(key)!;
    });
    return Promise.all(pages);
  }

  private findPage({ limit, status, afterId }: PetListQuery, deadline: number): Promise<PetDocument[]> {
    const filter = {
      ...(status === undefined ? {} : { status: { $eq: status } }),
      ...(afterId === undefined ? {} : { _id: { $gt: afterId } }),
    };
    return this.storage((db, signal) => pets(db).find(filter, this.readOptions(signal)).sort({ _id: 1 }).limit(limit).toArray(), deadline);
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

  private deadlineOf(arrivedAt = performance.now()): number {
    return arrivedAt + this.connection.settings.timeoutMs;
  }

  /** The server gives up on a read when this adapter does (a slow server, not only a lost one). */
  private readOptions(signal: AbortSignal) {
    return { signal, maxTimeMS: this.connection.settings.timeoutMs };
  }

  /** Runs driver calls by the deadline; whatever they throw leaves this adapter as StorageUnavailable. */
  private async storage<T>(operation: (db: Db, signal: AbortSignal) => Promise<T>, deadline?: number): Promise<T> {
    try {
      return await this.connection.run(operation, deadline);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  private unavailable(error: unknown): StorageUnavailable {
    this.onFailure(error);
    return new StorageUnavailable({ cause: error });
  }
}

function isCreate(settled: Settled): settled is Create {
  return typeof settled === 'object' && 'newPet' in settled;
}

function tooLate(): StorageUnavailable {
  return new StorageUnavailable({ cause: new Error('Too little of its request\'s time was left to send the insert') });
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
 * For adds whose keys other pets hold, with one read of those pets: each its pet (replayed) when it was made from
 * the same fingerprint, at any age; 'key_reused' while the key is live; else undefined once the key is free: the
 * expired key taken from that pet, by this add or (the filter names the holder and its expiry) a concurrent one.
 */
async function replaysOrFreeKeys(
  db: Db,
  idempotencies: readonly IdempotentCreate[],
  signal: AbortSignal,
): Promise<(Added | 'key_reused' | undefined)[]> {
  const keys = [...new Set(idempotencies.map(({ key }) => key))];
  const holders = await pets(db).find({ idempotencyKey: { $in: keys } }, { signal }).toArray();
  const byKey = new Map(holders.map((holder) => [holder.idempotencyKey, holder]));
  return Promise.all(
    idempotencies.map(async ({ key, fingerprint, now }) => {
      const holder = byKey.get(key);
      if (holder === undefined) return undefined;
      if (holder.idempotencyFingerprint === fingerprint) return { pet: toPet(holder), replayed: true };
      if (holder.idempotencyExpiresAt === undefined || holder.idempotencyExpiresAt.getTime() > now) return 'key_reused';
      const expired = { _id: holder._id, idempotencyKey: { $eq: key }, idempotencyExpiresAt: { $lte: new Date(now) } };
      await pets(db).updateOne(expired, { $unset: IDEMPOTENCY_FIELDS });
      return undefined;
    }),
  );
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

