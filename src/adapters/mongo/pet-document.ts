import { isInt64, isPetStatus, newPetOf, petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';

/** A pet as stored: the id is `_id`, int64 fields are BSON 64-bit integers (bigint with useBigInt64). */
export interface PetDocument {
  readonly _id: PetId;
  readonly name: string;
  readonly categoryId: bigint;
  readonly status?: PetStatus;
  /** The request that created the pet (AddOptions in the port); unique where present, never read back into a Pet. */
  readonly creationKey?: string;
}

/** Nothing but the NewPet members (and the creation key, when given) is stored. */
export function toPetDocument(id: PetId, pet: NewPet, creationKey?: string): PetDocument {
  // BSON wraps an out-of-range bigint silently (2^63 becomes -2^63); the core validates, this makes sure.
  if (!isInt64(pet.categoryId)) throw new RangeError('categoryId is outside the int64 range');
  const document = { _id: id, ...newPetOf(pet) };
  return creationKey === undefined ? document : { ...document, creationKey };
}

/** The stored document as a Pet; no `_id` or BSON type leaves the adapter. */
export function toPet(document: object): Pet {
  const { _id, name, categoryId: storedCategoryId, status } = document as Readonly<Record<string, unknown>>;
  const id = asInt64(_id);
  const categoryId = asInt64(storedCategoryId);
  if (id === undefined || categoryId === undefined || typeof name !== 'string' || (status !== undefined && !isPetStatus(status))) {
    throw new Error(`The stored pet ${String(_id)} is malformed`);
  }
  return petOf(id, { name, categoryId, status });
}

// Written by this adapter, int64 fields are always bigint; an int32 written by other tools reads as a number.
function asInt64(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  return Number.isSafeInteger(value) ? BigInt(value as number) : undefined;
}
