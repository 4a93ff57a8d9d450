import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';
import type { NewPet, Pet, PetId } from '../../src/core/pet.js';
import type { IdempotentCreate, PetListQuery } from '../../src/ports/pet-repository.js';
import { LoggedPetRepository } from '../../src/telemetry/logged-pet-repository.js';

/** The memory store (which needs no arrival), noting the arrival each call was given: a deadline is counted from it. */
class ArrivalsSeen extends InMemoryPetRepository {
  readonly arrivals: (number | undefined)[] = [];
  override add(pet: NewPet, arrivedAt?: number): Promise<Pet> {
    this.arrivals.push(arrivedAt);
    return super.add(pet);
  }
  override addOnce(pet: NewPet, idempotency: IdempotentCreate, arrivedAt?: number) {
    this.arrivals.push(arrivedAt);
    return super.addOnce(pet, idempotency);
  }
  override findById(id: PetId, arrivedAt?: number) {
    this.arrivals.push(arrivedAt);
    return super.findById(id);
  }
  override list(query: PetListQuery, arrivedAt?: number) {
    this.arrivals.push(arrivedAt);
    return super.list(query);
  }
}

describe('LoggedPetRepository', () => {
  it("hands every operation its request's arrival, so that debug logging does not move a storage deadline", async () => {
    const store = new ArrivalsSeen();
    const logged = new LoggedPetRepository(store, pino({ level: 'silent' }));
    const pet = await logged.add({ name: 'Rex', categoryId: 1n }, 11);
    await logged.addOnce({ name: 'Tom', categoryId: 1n }, { key: 'k', fingerprint: 'f', expiresAt: 1000, now: 0 }, 12);
    await logged.findById(pet.id, 13);
    await logged.list({ limit: 2 }, 14);
    expect(store.arrivals).toEqual([11, 12, 13, 14]);
  });
});
