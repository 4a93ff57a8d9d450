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

// Responses are written field by field: only whitelisted fields leave, and bigints print as bare digits.
export function petJson(pet: Pet): string {
  const status = pet.status === undefined ? '' : `,"status":"${pet.status}"`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

export function petsJson(pets: readonly Pet[]): string {
  return `[${pets.map(petJson).join(',')}]`;
}
