import { IdempotencyKeyReused } from '../../core/errors.js';
import { isInt64, petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';
import type { Added, IdempotentCreate, PetListQuery, PetRepository } from '../../ports/pet-repository.js';

/**
 * Pets in process memory. Ids are 1, 2, 3... in the order pets are added, so pet `id` sits in slot `id - 1` of
 * one array (a read is an index; a page without a filter starts at slot `afterId`), and each status has a list
 * in ascending id order, searched for the id to start after. Taking a pet out (a future delete) empties its slot
 * and splices it from its status list. An idempotency key maps to the pet it made.
 */
export class InMemoryPetRepository implements PetRepository {
  private readonly slots: (Pet | undefined)[] = [];
  private readonly byStatus = new Map<PetStatus, Pet[]>();
  private readonly byKey = new Map<string, { readonly pet: Pet; readonly fingerprint: string; readonly expiresAt: number }>();
  // Categories are few and every pet holds one: pets of a category share its bigint. Bounded, as clients choose them.
  private readonly categoryIds = new Map<bigint, bigint>();

  async add(newPet: NewPet): Promise<Pet> {
    return this.store(newPet);
  }

  async addOnce(newPet: NewPet, { key, fingerprint, expiresAt, now }: IdempotentCreate): Promise<Added> {
    const held = this.byKey.get(key);
    if (held?.fingerprint === fingerprint) return { pet: held.pet, replayed: true };
    if (held !== undefined && held.expiresAt > now) throw new IdempotencyKeyReused();
    // No await from the look-up to here: concurrent calls with one key see each other's pet.
    const pet = this.store(newPet);
    this.byKey.set(key, { pet, fingerprint, expiresAt });
    return { pet, replayed: false };
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    // Past 2^53 the number is inexact, but then it is far beyond any slot too.
    const slot = Number(id) - 1;
    return slot >= 0 && slot < this.slots.length ? this.slots[slot] : undefined;
  }

  async list({ limit, status, afterId }: PetListQuery): Promise<Pet[]> {
    if (status !== undefined) {
      const source = this.byStatus.get(status) ?? [];
      const start = afterId === undefined ? 0 : firstAfter(source, afterId);
      return source.slice(start, start + limit);
    }
    const pets: Pet[] = [];
    // Pets after id n start at slot n; an empty slot (a pet taken out) is passed over.
    const from = afterId === undefined || afterId < 0n ? 0 : Math.min(Number(afterId), this.slots.length);
    for (let slot = from; slot < this.slots.length && pets.length < limit; slot++) {
      const pet = this.slots[slot];
      if (pet !== undefined) pets.push(pet);
    }
    return pets;
  }

  async count(): Promise<number> {
    return this.slots.length;
  }

  async isReachable(): Promise<boolean> {
    return true;
  }

  private store(newPet: NewPet): Pet {
    // As the MongoDB adapter: the core validates, this keeps a store from holding what no other store could.
    if (!isInt64(newPet.categoryId)) throw new RangeError('categoryId is outside the int64 range');
    const { name, categoryId, status } = newPet;
    const pet = petOf(BigInt(this.slots.length + 1), { name, categoryId: this.sharedCategoryId(categoryId), status });
    this.slots.push(pet);
    if (pet.status !== undefined) this.statusList(pet.status).push(pet);
    return pet;
  }

  private sharedCategoryId(id: bigint): bigint {
    const shared = this.categoryIds.get(id);
    if (shared !== undefined) return shared;
    if (this.categoryIds.size < SHARED_CATEGORY_IDS) this.categoryIds.set(id, id);
    return id;
  }

  private statusList(status: PetStatus): Pet[] {
    let list = this.byStatus.get(status);
    if (list === undefined) this.byStatus.set(status, (list = []));
    return list;
  }
}

const SHARED_CATEGORY_IDS = 1024;

/** The index of the first pet in `pets` (ascending ids) whose id is greater than `id`. */
function firstAfter(pets: readonly Pet[], id: PetId): number {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (pets[middle]!.id <= id) low = middle + 1;
    else high = middle;
  }
  return low;
}
