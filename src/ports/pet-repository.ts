import type { NewPet, Pet, PetId, PetStatus } from '../core/pet.js';

export interface PetListQuery {
  /** At most this many pets come back. */
  readonly limit: number;
  /** Only pets with this status. */
  readonly status?: PetStatus;
  /** Only pets whose id is greater than this one (keyset pagination). */
  readonly afterId?: PetId;
}

export interface AddOptions {
  /**
   * Names the request that creates the pet (HTTP: the scoped, hashed Idempotency-Key and body). A second add
   * with the same creation key stores nothing and returns the pet the first one stored, even when the first
   * add failed for its caller after the pet was stored (a lost or late answer). Kept as long as the pet; never
   * part of the Pet.
   */
  readonly creationKey?: string;
}

/**
 * Where pets live. Every adapter must pass test/contract/pet-repository-contract.ts.
 * Failures to reach the store surface as the core's StorageUnavailable, never as a driver error.
 */
export interface PetRepository {
  /**
   * Stores the pet under a new id, greater than any id this store has handed out before, and returns it;
   * with a creation key already used, returns the pet stored under that key instead (see AddOptions).
   */
  add(pet: NewPet, options?: AddOptions): Promise<Pet>;
  /** The pet with this id, or undefined when there is none. */
  findById(id: PetId): Promise<Pet | undefined>;
  /** Pets matching the query in ascending id order. */
  list(query: PetListQuery): Promise<Pet[]>;
  /** How many pets are stored (for metrics; may be approximate on large stores). */
  count(): Promise<number>;
  /** Whether the store answers right now; used by readiness checks. Never throws. */
  isReachable(): Promise<boolean>;
}
