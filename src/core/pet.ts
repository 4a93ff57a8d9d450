/** Availability of an animal, in the order the spec lists them. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** An int64 identifier. bigint keeps all 64 bits; a JS number would silently round past 2^53. */
export type Int64 = bigint;
export type PetId = Int64;

export const INT64_MIN: Int64 = -(2n ** 63n);
export const INT64_MAX: Int64 = 2n ** 63n - 1n;
export const PET_NAME_MAX_LENGTH = 255;

export interface NewPet {
  readonly name: string;
  readonly categoryId: Int64;
  readonly status?: PetStatus;
}

export interface Pet extends NewPet {
  readonly id: PetId;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** A name the catalogue accepts: 1 to 255 characters, not only whitespace. */
export function isValidPetName(name: string): boolean {
  return name.length >= 1 && name.length <= PET_NAME_MAX_LENGTH && name.trim().length > 0;
}
