import { isInt64, PET_STATUSES, sharedInt64, type NewPet } from '../../core/pet.js';

const FIRST_CAPACITY = 1024;
// Status in the low two bits (0: none, else its place in PET_STATUSES plus one); this bit: the name is UTF-16.
const STATUS_BITS = 0b011;
const TWO_BYTE_NAME = 0b100;
/** Every code unit fits one byte: the name is stored as latin1, half the bytes of UTF-16 and lossless. */
const ONE_BYTE = /^[\x00-\xff]*$/;

/**
 * The fields of every stored pet, column by column, in typed arrays and one byte buffer: outside the JS heap,
 * so a store of a million pets is a handful of objects for the garbage collector, not three million to mark
 * and move (kept as Pet objects, 600,000 pets made every major GC pause 20 to 36 ms, longer with each create).
 * Names keep every UTF-16 code unit (a lone surrogate too): latin1 when they fit, UTF-16 otherwise. A new Pet
 * field is a new column here, written in append() and read in newPet().
 */
export class PetColumns {
  /** How many pets are stored; record n (from 0) holds the nth pet added. */
  size = 0;
  private categoryIds = new BigInt64Array(FIRST_CAPACITY);
  private flags = new Uint8Array(FIRST_CAPACITY);
  /** Where record n's name ends in `names`; it starts where record n - 1's ends. */
  private nameEnds = new Float64Array(FIRST_CAPACITY);
  private names = Buffer.allocUnsafe(FIRST_CAPACITY * 16);

  /** Stores the pet's fields as the next record; returns its number. */
  append({ name, categoryId, status }: NewPet): number {
    // A BigInt64Array wraps what does not fit: refuse it rather than store another number.
    if (!isInt64(categoryId)) throw new RangeError(`categoryId ${categoryId} is outside int64`);
    const record = this.size;
    if (record === this.flags.length) this.growRecords();
    const oneByte = ONE_BYTE.test(name);
    const start = this.nameStart(record);
    const end = start + name.length * (oneByte ? 1 : 2);
    if (end > this.names.length) this.growNames(end);
    this.names.write(name, start, oneByte ? 'latin1' : 'utf16le');
    this.nameEnds[record] = end;
    this.categoryIds[record] = categoryId;
    this.flags[record] = (status === undefined ? 0 : PET_STATUSES.indexOf(status) + 1) | (oneByte ? 0 : TWO_BYTE_NAME);
    this.size = record + 1;
    return record;
  }

  /** The fields record `record` holds, as append() was given them. */
  newPet(record: number): NewPet {
    const flags = this.flags[record]!;
    const name = this.names.toString((flags & TWO_BYTE_NAME) === 0 ? 'latin1' : 'utf16le', this.nameStart(record), this.nameEnds[record]);
    const categoryId = sharedInt64(this.categoryIds[record]!);
    const code = flags & STATUS_BITS;
    return code === 0 ? { name, categoryId } : { name, categoryId, status: PET_STATUSES[code - 1]! };
  }

  private nameStart(record: number): number {
    return record === 0 ? 0 : this.nameEnds[record - 1]!;
  }

  private growRecords(): void {
    const capacity = this.flags.length * 2;
    const categoryIds = new BigInt64Array(capacity);
    const flags = new Uint8Array(capacity);
    const nameEnds = new Float64Array(capacity);
    categoryIds.set(this.categoryIds);
    flags.set(this.flags);
    nameEnds.set(this.nameEnds);
    [this.categoryIds, this.flags, this.nameEnds] = [categoryIds, flags, nameEnds];
  }

  private growNames(atLeast: number): void {
    const names = Buffer.allocUnsafe(Math.max(atLeast, this.names.length * 2));
    this.names.copy(names, 0, 0, this.nameStart(this.size));
    this.names = names;
  }
}

/** Record numbers in ascending order, in a typed array that doubles when full: the index of one status. */
export class RecordList {
  length = 0;
  private records = new Uint32Array(FIRST_CAPACITY);

  push(record: number): void {
    if (this.length === this.records.length) {
      const records = new Uint32Array(this.length * 2);
      records.set(this.records);
      this.records = records;
    }
    this.records[this.length++] = record;
  }

  at(position: number): number {
    return this.records[position]!;
  }

  /** The position of the first record numbered `record` or more (`length` when none is). */
  firstAtLeast(record: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.records[mid]! < record) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
