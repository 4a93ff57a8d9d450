import { petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';
import type { AddOptions, PetListQuery, PetRepository } from '../../ports/pet-repository.js';

/**
 * Pets in process memory. Ids are handed out in ascending order, so appending keeps every array
 * sorted by id: one array for all pets and one per status act as ordered indexes, and every read is a
 * binary search plus a slice, whatever the store size.
 */
export class InMemoryPetRepository implements PetRepository {
  private lastId: PetId = 0n;
  private readonly all: Pet[] = [];
  private readonly byStatus = new Map<PetStatus, Pet[]>();
  private readonly byCreationKey = new Map<string, Pet>();

  async add(newPet: NewPet, { creationKey }: AddOptions = {}): Promise<Pet> {
    const created = creationKey === undefined ? undefined : this.byCreationKey.get(creationKey);
    if (created !== undefined) return created;
    this.lastId += 1n;
    const pet = petOf(this.lastId, newPet);
    this.all.push(pet);
    if (pet.status !== undefined) this.statusIndex(pet.status).push(pet);
    if (creationKey !== undefined) this.byCreationKey.set(creationKey, pet);
    return pet;
  }

  async findById(id: PetId): Promise<Pet | undefined> {
    const at = firstIndexAfter(this.all, id - 1n);
    const pet = this.all[at];
    return pet !== undefined && pet.id === id ? pet : undefined;
  }

  async list(query: PetListQuery): Promise<Pet[]> {
    const source = query.status === undefined ? this.all : (this.byStatus.get(query.status) ?? []);
    const start = query.afterId === undefined ? 0 : firstIndexAfter(source, query.afterId);
    return source.slice(start, start + query.limit);
  }

  async count(): Promise<number> {
    return this.all.length;
  }

  async isReachable(): Promise<boolean> {
    return true;
  }

  private statusIndex(status: PetStatus): Pet[] {
    let index = this.byStatus.get(status);
    if (index === undefined) {
      index = [];
      this.byStatus.set(status, index);
    }
    return index;
  }
}

/** Index of the first pet whose id is greater than `id` in an id-sorted array. */
function firstIndexAfter(pets: readonly Pet[], id: PetId): number {
  let low = 0;
  let high = pets.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (pets[mid]!.id <= id) low = mid + 1;
    else high = mid;
  }
  return low;
}
