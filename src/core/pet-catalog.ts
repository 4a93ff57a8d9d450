import type { ApiKeyId, ApiKeyVerifier } from '../ports/api-key-verifier.js';
import type { Added, IdempotentCreate, PetRepository } from '../ports/pet-repository.js';
import { InvalidApiKey, ValidationFailed, MissingApiKey, PetNotFound } from './errors.js';
import { PET_NAME_MAX_LENGTH, isInt64, isPetStatus, isValidPetName, type NewPet, type Pet, type PetId, type PetStatus } from './pet.js';

export interface ListPetsRequest {
  readonly limit: number;
  readonly status?: PetStatus;
  readonly afterId?: PetId;
}

export interface PetPage {
  readonly pets: readonly Pet[];
  /** Present when more pets match: pass it back as `afterId` to continue. */
  readonly nextAfterId?: PetId;
}

export const LIST_LIMIT_MIN = 1;
export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 20;

/** The use cases of the animal store: who may call, list, add, get. */
export class PetCatalog {
  constructor(
    private readonly pets: PetRepository,
    private readonly keys: ApiKeyVerifier,
  ) {}

  /** The id of the caller's key; throws MissingApiKey or InvalidApiKey. */
  authenticate(apiKey: string | undefined): ApiKeyId {
    if (apiKey === undefined) throw new MissingApiKey();
    const id = this.keys.verify(apiKey);
    if (id === undefined) throw new InvalidApiKey();
    return id;
  }

  /** One page of pets in ascending id order. `arrivedAt`, here and below: see PetRepository. */
  async listPets(request: ListPetsRequest, arrivedAt?: number): Promise<PetPage> {
    const { limit } = request;
    if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
      throw new ValidationFailed('limit', `limit must be an integer from ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}.`);
    }
    // One extra row tells whether another page exists without a count.
    const found = await this.pets.list({ ...request, limit: limit + 1 }, arrivedAt);
    if (found.length <= limit) return { pets: found };
    const pets = found.slice(0, limit);
    return { pets, nextAfterId: pets[pets.length - 1]!.id };
  }

  /**
   * Adds a pet; the store assigns its id. With `idempotency`, a repeated call returns the pet the first one
   * stored (replayed) instead of adding another, or throws IdempotencyKeyReused (PetRepository's addOnce).
   */
  async addPet(newPet: NewPet, idempotency?: IdempotentCreate, arrivedAt?: number): Promise<Added> {
    assertValidNewPet(newPet);
    if (idempotency === undefined) return { pet: await this.pets.add(newPet, arrivedAt), replayed: false };
    return this.pets.addOnce(newPet, idempotency, arrivedAt);
  }

  async getPet(id: PetId, arrivedAt?: number): Promise<Pet> {
    const pet = await this.pets.findById(id, arrivedAt);
    if (pet === undefined) throw new PetNotFound(id);
    return pet;
  }
}

// The HTTP adapter validates first with precise messages; this guards the invariants for every other caller.
function assertValidNewPet(pet: NewPet): void {
  if (typeof pet.name !== 'string' || !isValidPetName(pet.name)) {
    throw new ValidationFailed('name', `name must be 1 to ${PET_NAME_MAX_LENGTH} characters (code points) and not blank.`);
  }
  if (typeof pet.categoryId !== 'bigint' || !isInt64(pet.categoryId)) {
    throw new ValidationFailed('categoryId', 'categoryId must be an int64 integer.');
  }
  if (pet.status !== undefined && !isPetStatus(pet.status)) {
    throw new ValidationFailed('status', 'status must be one of available, pending, sold.');
  }
}
