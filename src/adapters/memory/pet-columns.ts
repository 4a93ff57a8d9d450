import { isInt64, PET_STATUSES, sharedInt64, type NewPet } from '../../core/pet.js';

/**
 * Records per chunk of every column, as a power of two (2^14 = 16,384), so that finding a record's chunk is a
 * shift, not a division: 13 bytes a record (categoryId, flags, where the name ends), 208 KiB a chunk, plus
 * its names. A store grows by adding chunks, never by copying what it holds.
 */
export const CHUNK_BITS = 14;
/** A chunk's first name buffer: room for names of 16 bytes on average; longer ones grow that chunk's alone. */
const NAME_BYTES_PER_RECORD = 16;
// Status in the low two bits (0: none, else its place in PET_STATUSES plus one); this bit: the name is UTF-16.
const STATUS_BITS = 0b011;
const TWO_BYTE_NAME = 0b100;
/** Every code unit fits one byte: the name is stored as latin1, half the bytes of UTF-16 and lossless. */
const ONE_BYTE = /^[\x00-\xff]*$/;
/** A chunk's name ends are 32-bit. */
const MAX_CHUNK_NAME_BYTES = 0xffff_ffff;

/**
 * The fields of every stored pet, column by column, in typed arrays and byte buffers: outside the JS heap, so
 * a store of a million pets is a handful of objects for the garbage collector, not three million to mark and
 * move (kept as Pet objects, 600,000 pets made every major GC pause 20 to 36 ms, longer with each create).
 *
 * The columns come in fixed chunks. Grown by doubling, a column copied itself into one twice its size: at a
 * million pets that was a 17 MB copy on the request path, and V8 counts every new buffer's bytes towards its
 * next mark-compact, so each doubling brought one on (every 4 to 10 s under creates, each a stretch of 20 ms
 * latencies on a core shared with V8's sweeper). A chunk is allocated once and never copied or freed.
 *
 * Names keep every UTF-16 code unit (a lone surrogate too): latin1 when they fit, UTF-16 otherwise. A new Pet
 * field is a new column in ColumnChunk, written in write() and read in read().
 */
export class PetColumns {
  /** How many pets are stored; record n (from 0) holds the nth pet added. */
  size = 0;
  private readonly chunks: ColumnChunk[] = [];
  private readonly slotMask: number;

  constructor(private readonly chunkBits = CHUNK_BITS) {
    this.slotMask = 2 ** chunkBits - 1;
  }

  /** Stores the pet's fields as the next record; returns its number. */
  append(pet: NewPet): number {
    // A BigInt64Array wraps what does not fit: refuse it rather than store another number.
    if (!isInt64(pet.categoryId)) throw new RangeError(`categoryId ${pet.categoryId} is outside int64`);
    const record = this.size;
    const chunk = record >>> this.chunkBits;
    // Pushed by whichever append first needs it: one that threw after pushing leaves it there for the next.
    if (chunk === this.chunks.length) this.chunks.push(new ColumnChunk(this.slotMask + 1));
    this.chunks[chunk]!.write(record & this.slotMask, pet);
    this.size = record + 1;
    return record;
  }

  /** The fields record `record` holds, as append() was given them. */
  newPet(record: number): NewPet {
    return this.chunks[record >>> this.chunkBits]!.read(record & this.slotMask);
  }
}

/** One chunk of every column; slot n holds record (chunk number × chunk size + n). */
class ColumnChunk {
  private readonly categoryIds: BigInt64Array;
  private readonly flags: Uint8Array;
  /** Where slot n's name ends in `names`; it starts where slot n - 1's ends (slot 0's at 0). */
  private readonly nameEnds: Uint32Array;
  private names: Buffer;

  constructor(records: number) {
    this.categoryIds = new BigInt64Array(records);
    this.flags = new Uint8Array(records);
    this.nameEnds = new Uint32Array(records);
    this.names = Buffer.allocUnsafe(records * NAME_BYTES_PER_RECORD);
  }

  write(slot: number, { name, categoryId, status }: NewPet): void {
    const oneByte = ONE_BYTE.test(name);
    const start = this.nameStart(slot);
    const end = start + name.length * (oneByte ? 1 : 2);
    if (end > MAX_CHUNK_NAME_BYTES) throw new RangeError('the names of one chunk of the store passed 4 GiB');
    if (end > this.names.length) this.growNames(start, end);
    this.names.write(name, start, oneByte ? 'latin1' : 'utf16le');
    this.nameEnds[slot] = end;
    this.categoryIds[slot] = categoryId;
    this.flags[slot] = (status === undefined ? 0 : PET_STATUSES.indexOf(status) + 1) | (oneByte ? 0 : TWO_BYTE_NAME);
  }

  read(slot: number): NewPet {
    const flags = this.flags[slot]!;
    const name = this.names.toString((flags & TWO_BYTE_NAME) === 0 ? 'latin1' : 'utf16le', this.nameStart(slot), this.nameEnds[slot]);
    const categoryId = sharedInt64(this.categoryIds[slot]!);
    const code = flags & STATUS_BITS;
    return code === 0 ? { name, categoryId } : { name, categoryId, status: PET_STATUSES[code - 1]! };
  }

  private nameStart(slot: number): number {
    return slot === 0 ? 0 : this.nameEnds[slot - 1]!;
  }

  /** Only this chunk's names are copied, and only when they run longer than 16 bytes on average. */
  private growNames(used: number, atLeast: number): void {
    const names = Buffer.allocUnsafe(Math.min(MAX_CHUNK_NAME_BYTES, Math.max(atLeast, this.names.length * 2)));
    this.names.copy(names, 0, 0, used);
    this.names = names;
  }
}

/** Record numbers in ascending order, in fixed chunks of a typed array: the index of one status. */
export class RecordList {
  length = 0;
  private readonly chunks: Uint32Array[] = [];
  private readonly slotMask: number;

  constructor(private readonly chunkBits = CHUNK_BITS) {
    this.slotMask = 2 ** chunkBits - 1;
  }

  push(record: number): void {
    const chunk = this.length >>> this.chunkBits;
    if (chunk === this.chunks.length) this.chunks.push(new Uint32Array(this.slotMask + 1));
    this.chunks[chunk]![this.length & this.slotMask] = record;
    this.length++;
  }

  at(position: number): number {
    return this.chunks[position >>> this.chunkBits]![position & this.slotMask]!;
  }

  /** The position of the first record numbered `record` or more (`length` when none is). */
  firstAtLeast(record: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.at(mid) < record) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
