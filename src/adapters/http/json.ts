import { parse } from 'lossless-json';
import type { Pet } from '../../core/pet.js';

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** A number as RFC 8259 writes it (no leading zeros, no plus sign): how a query value may write an integer. */
export const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** Beyond this many digits a value is far outside int64: it stays a number and fails the range check. */
const MAX_INTEGER_DIGITS = 40;

/**
 * The exact value of a decimal numeral (JSON number grammar, leading zeros allowed) when it is an integer,
 * as JSON Schema 2020-12 counts them: `1`, `1.0`, `1e3` and `1.5e1` are; `1.5` and `1e-1` are not (undefined).
 * Decided on digits, never through a double: `1.00000000000000001` is not an integer.
 */
export function exactInteger(text: string): bigint | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 0n;
  let scale = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  scale += digits.length - trimmed.length;
  digits = trimmed;
  if (scale < 0 || digits.length + scale > MAX_INTEGER_DIGITS) return undefined;
  const value = BigInt(digits) * 10n ** BigInt(scale);
  return sign === '-' ? -value : value;
}

// Integers, however written, become exact bigints (JSON.parse would round int64 past 2^53); fractions and
// integers too long for any int64 stay numbers and fail the int64 checks.
const parseNumber = (text: string): bigint | number => exactInteger(text) ?? Number(text);

/**
 * Parses JSON exactly: integers as bigint, duplicate keys rejected, `__proto__` kept as a plain key. Not
 * JSON.parse, which rounds int64 past 2^53 and keeps the last of duplicate keys.
 */
export function parseExactJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

/** Deepest nesting of arrays and objects in a JSON text, counted without parsing it. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

// Clients read the same pets and pages again and again, and a stored pet never changes. Kept by id with the pet
// it was written from, and used only for a pet with the same fields: no object identity is assumed of storage.
// Keyed by the id as a double: a Map hashes a bigint key in the runtime (callgrind: +4,500 instructions a list of
// 20); ids past 2^53 may share a key, and the kept pet's id decides. Bounded, so reading a large store does not grow memory.
const RECENT_PETS = 10_000;
const recentPets = new Map<number, { readonly pet: Pet; readonly json: string }>();

/** A pet as JSON, remembered for the next read of the same pet. */
export function petJson(pet: Pet): string {
  const key = Number(pet.id);
  const kept = recentPets.get(key);
  if (kept !== undefined && samePet(kept.pet, pet)) return kept.json;
  const json = newPetJson(pet);
  if (recentPets.size >= RECENT_PETS) recentPets.clear();
  recentPets.set(key, { pet, json });
  return json;
}

const samePet = (a: Pet, b: Pet) =>
  a === b || (a.id === b.id && a.name === b.name && a.categoryId === b.categoryId && a.status === b.status);

/** A pet as JSON, field by field: only whitelisted fields leave, and bigints print as bare digits. */
export function newPetJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** A page as one JSON array of the pets' JSON. */
export function petsJson(pets: readonly Pet[]): string {
  return `[${pets.map(petJson).join(',')}]`;
}
