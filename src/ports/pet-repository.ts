import type { NewPet, Pet, PetId, PetStatus } from '../core/pet.js';

export interface PetListQuery {
  /** At most this many pets come back. */
  readonly limit: number;
  /** Only pets with this status. */
  readonly status?: PetStatus;
  /** Only pets whose id is greater than this one (keyset pagination). */
  readonly afterId?: PetId;
}

/** Names one create so that repeating it stores nothing more (HTTP: an Idempotency-Key). Never part of the Pet. */
export interface IdempotentCreate {
  /** The caller's key for the create (HTTP: the API key id, operation and Idempotency-Key, hashed). */
  readonly key: string;
  /** What was asked (HTTP: SHA-256 of the canonical body); the same key with another fingerprint is another request. */
  readonly fingerprint: string;
  /** Epoch ms until which the key refuses another fingerprint (IDEMPOTENCY_TTL_MS after its first use). */
  readonly expiresAt: number;
  /** The current time, epoch ms (from the Clock port, so expiry is testable). */
  readonly now: number;
}

/** What addOnce did: stored `pet`, or (`replayed`) found it stored by an earlier add with the same key and fingerprint. */
export interface Added {
  readonly pet: Pet;
  readonly replayed: boolean;
}

/**
 * Where pets live. Every adapter must pass test/contract/pet-repository-contract.ts.
 * Failures to reach the store surface as the core's StorageUnavailable, never as a driver error.
 *
 * `arrivedAt`, on the calls a request makes: when that request reached the service, in performance.now()
 * milliseconds. A store that bounds how long a call may wait for it (MongoDB: MONGODB_TIMEOUT_MS) counts that
 * bound from this instant, so that the time the request spent before the call, or waiting behind others, is part
 * of it; when the bound is over it throws StorageUnavailable. Without `arrivedAt` the bound counts from the call.
 */
export interface PetRepository {
  /** Stores the pet under a new id, greater than any id this store has handed out before, and returns it. */
  add(pet: NewPet, arrivedAt?: number): Promise<Pet>;
  /**
   * As add, with the key stored with the pet in the same write; a later addOnce with that key stores nothing:
   * with the same fingerprint it returns the pet the key names (replayed), whenever it comes, even when the
   * first call failed for its caller after the pet was stored; with another fingerprint it throws
   * IdempotencyKeyReused until the key's `expiresAt`, after which the key is taken from that pet and this call
   * stores anew. Concurrent calls with one key store one pet and all return it.
   */
  addOnce(pet: NewPet, idempotency: IdempotentCreate, arrivedAt?: number): Promise<Added>;
  /** The pet with this id, or undefined when there is none. */
  findById(id: PetId, arrivedAt?: number): Promise<Pet | undefined>;
  /** Pets matching the query in ascending id order. */
  list(query: PetListQuery, arrivedAt?: number): Promise<Pet[]>;
  /** How many pets are stored (for metrics; may be approximate on large stores). */
  count(): Promise<number>;
  /** Whether the store answers right now; used by readiness checks. Never throws. */
  isReachable(): Promise<boolean>;
}
