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

/**
 * The NewPet members of `pet`, copied field by field: whatever else the input carries (a client's `id`, a
 * `__proto__` key) never travels further. Every adapter builds pets through it or petOf, so a new field is
 * added to both, here.
 */
export function newPetOf(pet: NewPet): NewPet {
  const { name, categoryId, status } = pet;
  return status === undefined ? { name, categoryId } : { name, categoryId, status };
}

/** The pet `id` names, with the NewPet members of `pet` (and nothing else it carries). */
export function petOf(id: PetId, pet: NewPet): Pet {
  const { name, categoryId, status } = pet;
  return status === undefined ? { id, name, categoryId } : { id, name, categoryId, status: sharedStatus(status) };
}

// A status parsed from a request or a document is a string of its own; pets share the three instead (petOf builds
// every Pet a store holds or returns; a NewPet is passing through).
function sharedStatus(status: PetStatus): PetStatus {
  return PET_STATUSES.find((known) => known === status) ?? status;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

export function isInt64(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** Length in Unicode code points, as JSON Schema's maxLength counts: one emoji is one, not two UTF-16 units. */
export function codePointLength(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++, length++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return length;
}

/** A name the catalogue accepts: 1 to 255 code points, not only whitespace. */
export function isValidPetName(name: string): boolean {
  return name.trim().length > 0 && codePointLength(name) <= PET_NAME_MAX_LENGTH;
}
