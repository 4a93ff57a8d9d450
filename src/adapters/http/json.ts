import { isInteger, parse } from 'lossless-json';
import type { Pet } from '../../core/pet.js';

// Integers become bigint so int64 values keep every digit; JSON.parse would round them past 2^53.
// Anything written with a fraction or exponent stays a number and fails the int64 checks.
const parseNumber = (text: string): bigint | number => (isInteger(text) ? BigInt(text) : Number(text));

/** Parses JSON exactly: integers as bigint, duplicate keys rejected, `__proto__` kept as a plain key. */
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

// A Pet never changes and the memory repository hands out the same objects, so each one's JSON is
// written once; the WeakMap lets it go with its pet (MongoDB returns fresh objects: those miss, and go).
const written = new WeakMap<Pet, string>();

/** A pet as JSON, field by field: only whitelisted fields leave, and bigints print as bare digits. */
export function petJson(pet: Pet): string {
  let json = written.get(pet);
  if (json === undefined) {
    const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
    json = `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
    written.set(pet, json);
  }
  return json;
}

export function petsJson(pets: readonly Pet[]): string {
  return `[${pets.map(petJson).join(',')}]`;
}
