import { isInt64, petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';
import type { AddOptions, PetListQuery, PetRepository } from '../../ports/pet-repository.js';

/**
 * Pets in process memory: a Map by id for reads, and lists in ascending id order (all pets, and one per
 * status) for pages, each found by binary search on the id to start after. New ids only ever grow, so
 * adding is an append; taking a pet out (a future delete) is a Map delete and a splice from two lists.
 */
export class InMemoryPetRepository implements PetRepository {
  private lastId: PetId = 0n;
  private readonly byId = new Map<PetId, Pet>();
  private readonly all: Pet[] = [];
  private readonly byStatus = new Map<PetStatus, Pet[]>();
  private readonly byCreationKey = new Map<string, Pet>();

  async add(newPet: NewPet, { creationKey }: AddOptions = {}): Promise<Pet> {
    const created = creationKey === undefined ? undefined : this.byCreationKey.get(creationKey);
    if (created !== undefined) return created;
    // As the MongoDB adapter: the core validates, this keeps a store from holding what no other store could.
    if (!isInt64(newPet.categoryId)) throw new RangeError('categoryId is outside the int64 range');
    const pet = petOf(++this.lastId, newPet);
    this.byId.set(pet.id, pet);
    this.all.push(pet);
    if (pet.status !== undefined) this.statusList(pet.status).push(pet);
    if (creationKey !== undefined) this.byCreationKey.set(creationKey, pet);
    return pet;
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    return this.byId.get(id);
  }

  async list({ limit, status, afterId }: PetListQuery): Promise<Pet[]> {
    const source = status === undefined ? this.all : (this.byStatus.get(status) ?? []);
    const start = afterId === undefined ? 0 : firstAfter(source, afterId);
    return source.slice(start, start + limit);
  }

  async count(): Promise<number> {
    return this.byId.size;
  }

  async isReachable(): Promise<boolean> {
    return true;
  }

  private statusList(status: PetStatus): Pet[] {
    let list = this.byStatus.get(status);
    if (list === undefined) this.byStatus.set(status, (list = []));
    return list;
  }
}

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
