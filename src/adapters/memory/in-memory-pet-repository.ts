import { petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';
import type { AddOptions, PetListQuery, PetRepository } from '../../ports/pet-repository.js';
import { CHUNK_BITS, PetColumns, RecordList } from './pet-columns.js';

/**
 * Pets in process memory, in columns off the JS heap (pet-columns.ts). Ids are 1, 2, 3... in the order pets
 * are added and nothing is deleted, so pet `id` is record `id - 1`: a read is an index, and "after id n" is
 * record n onwards. One ordered list of records per status serves the status filter.
 *
 * A pet read is built once and kept, so a pet read again is the same object (json.ts remembers its JSON by
 * it); a pet only ever written stays a record, and costs the garbage collector nothing.
 */
export class InMemoryPetRepository implements PetRepository {
  private readonly columns: PetColumns;
  /**
   * The Pet objects of the records read so far, one array per chunk of the columns that has had a read (slot n
   * holds the chunk's record n), undefined elsewhere. Per chunk, so that reading one pet deep in a big store
   * sizes one chunk's array, not an array as long as the store up to it. Nothing is added here by a create: a slot
   * per create grew an array in the old generation, garbage only a mark-compact frees (BENCHMARKS.md).
   */
  private readonly read: ((Pet | undefined)[] | undefined)[] = [];
  private readonly byStatus = new Map<PetStatus, RecordList>();
  private readonly byCreationKey = new Map<string, number>();

  private readonly slotMask: number;

  /** `chunkBits`: 2^chunkBits records per chunk of the columns; the tests make it small to cross many chunks. */
  constructor(private readonly chunkBits = CHUNK_BITS) {
    this.columns = new PetColumns(chunkBits);
    this.slotMask = 2 ** chunkBits - 1;
  }

  async add(newPet: NewPet, { creationKey }: AddOptions = {}): Promise<Pet> {
    const created = creationKey === undefined ? undefined : this.byCreationKey.get(creationKey);
    if (created !== undefined) return this.pet(created);
    const record = this.columns.append(newPet);
    if (newPet.status !== undefined) this.statusIndex(newPet.status).push(record);
    if (creationKey !== undefined) this.byCreationKey.set(creationKey, record);
    // Not kept in `read`: most pets created are not read soon, and a kept one is three heap objects.
    return petOf(idOf(record), newPet);
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    // Past 2^53 the number is inexact, but then it is far beyond any record too.
    const record = Number(id) - 1;
    return record >= 0 && record < this.columns.size ? this.pet(record) : undefined;
  }

  async list(query: PetListQuery): Promise<Pet[]> {
    // Pets after id n are records n onwards; a negative id is before them all.
    const from = query.afterId === undefined || query.afterId < 0n ? 0 : Math.min(Number(query.afterId), this.columns.size);
    const pets: Pet[] = [];
    if (query.status === undefined) {
      for (let record = from; record < this.columns.size && pets.length < query.limit; record++) pets.push(this.pet(record));
      return pets;
    }
    const index = this.byStatus.get(query.status);
    if (index === undefined) return pets;
    for (let at = index.firstAtLeast(from); at < index.length && pets.length < query.limit; at++) pets.push(this.pet(index.at(at)));
    return pets;
  }

  async count(): Promise<number> {
    return this.columns.size;
  }

  async isReachable(): Promise<boolean> {
    return true;
  }

  private pet(record: number): Pet {
    const chunk = record >>> this.chunkBits;
    const slot = record & this.slotMask;
    let pets = this.read[chunk];
    if (pets === undefined) {
      while (this.read.length < chunk) this.read.push(undefined);
      pets = this.read[chunk] = [];
    }
    let pet = pets[slot];
    if (pet === undefined) {
      pet = petOf(idOf(record), this.columns.newPet(record));
      // Filled up to the slot first: an array written far past its end turns into a slow dictionary.
      while (pets.length < slot) pets.push(undefined);
      pets[slot] = pet;
    }
    return pet;
  }

  private statusIndex(status: PetStatus): RecordList {
    let index = this.byStatus.get(status);
    if (index === undefined) {
      index = new RecordList(this.chunkBits);
      this.byStatus.set(status, index);
    }
    return index;
  }
}

const idOf = (record: number): PetId => BigInt(record + 1);
