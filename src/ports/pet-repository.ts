import type { NewPet, Pet, PetId, PetStatus } from '../core/pet.js';

export interface PetListQuery {
  /** At most this many pets come back. */
  readonly limit: number;
  /** Only pets with this status. */
  readonly status?: PetStatus;
  /** Only pets whose id is greater than this one (keyset pagination). */
  readonly afterId?: PetId;
}

/**
 * Where pets live. Every adapter must pass test/contract/pet-repository-contract.ts.
 * Failures to reach the store surface as the core's StorageUnavailable, never as a driver error.
 */
export interface PetRepository {
  /** Stores the pet under a new id, greater than any id this store has handed out before, and returns it. */
  add(pet: NewPet): Promise<Pet>;
  /** The pet with this id, or undefined when there is none. */
  findById(id: PetId): Promise<Pet | undefined>;
  /** Pets matching the query in ascending id order. */
  list(query: PetListQuery): Promise<Pet[]>;
  /** How many pets are stored (for metrics; may be approximate on large stores). */
  count(): Promise<number>;
  /** Whether the store answers right now; used by readiness checks. Never throws. */
  isReachable(): Promise<boolean>;
}
