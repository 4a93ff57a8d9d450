import { isInt64, isPetStatus, newPetOf, petOf, type NewPet, type Pet, type PetId, type PetStatus } from '../../core/pet.js';
import type { IdempotentCreate } from '../../ports/pet-repository.js';

/** A pet as stored: the id is `_id`, int64 fields are BSON 64-bit integers (bigint with useBigInt64). */
export interface PetDocument {
  readonly _id: PetId;
  readonly name: string;
  readonly categoryId: bigint;
  readonly status?: PetStatus;
  /** The idempotency key of the create that made the pet (the port's IdempotentCreate); unique where present. */
  readonly idempotencyKey?: string;
  /** With the key: the fingerprint of that create and when the key stops refusing another one. */
  readonly idempotencyFingerprint?: string;
  readonly idempotencyExpiresAt?: Date;
}

/** The fields that bind an idempotency key to a pet; never read back into a Pet. */
export const IDEMPOTENCY_FIELDS = { idempotencyKey: '', idempotencyFingerprint: '', idempotencyExpiresAt: '' } as const;

/** Nothing but the NewPet members (and the idempotency key, when given) is stored. */
export function toPetDocument(id: PetId, pet: NewPet, idempotency?: IdempotentCreate): PetDocument {
  // BSON wraps an out-of-range bigint silently (2^63 becomes -2^63); the core validates, this makes sure.
  if (!isInt64(pet.categoryId)) throw new RangeError('categoryId is outside the int64 range');
  const document = { _id: id, ...newPetOf(pet) };
  if (idempotency === undefined) return document;
  const { key, fingerprint, expiresAt } = idempotency;
  return { ...document, idempotencyKey: key, idempotencyFingerprint: fingerprint, idempotencyExpiresAt: new Date(expiresAt) };
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

/** A stored document's id as a PetId; undefined when it is not an integer. */
export function storedId(document: PetDocument): PetId | undefined {
  return asInt64(document._id);
}

// Written by this adapter, int64 fields are always bigint; an int32 written by other tools reads as a number.
function asInt64(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  return Number.isSafeInteger(value) ? BigInt(value as number) : undefined;
}

type PetFields = Pick<PetDocument, 'name' | 'categoryId' | 'status'>;

// The document's int64 fields are bigint as written (useBigInt64); one written by other tools goes through toPet.
const sameFields = (a: PetFields, b: PetFields) => a.name === b.name && a.categoryId === b.categoryId && a.status === b.status;

/** Whether `stored` is `document` as this adapter wrote it: the same pet fields and idempotency key. */
export function sameDocument(stored: PetDocument, document: PetDocument): boolean {
  return (
    sameFields(stored, document) &&
    stored.idempotencyKey === document.idempotencyKey &&
    stored.idempotencyFingerprint === document.idempotencyFingerprint
  );
}
