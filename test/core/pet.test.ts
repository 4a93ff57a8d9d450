import { describe, expect, it } from 'vitest';
import { codePointLength, isValidPetName, newPetOf, petOf, type NewPet } from '../../src/core/pet.js';

describe('isValidPetName', () => {
  it('counts code points, as JSON Schema maxLength does: 255 emoji pass, 256 do not', () => {
    expect(isValidPetName('🐕'.repeat(255))).toBe(true);
    expect(isValidPetName('🐕'.repeat(256))).toBe(false);
    expect(isValidPetName('n'.repeat(255))).toBe(true);
    expect(isValidPetName('n'.repeat(256))).toBe(false);
  });

  it('refuses empty and blank names', () => {
    for (const name of ['', ' ', '\t\n', '\u00a0\u2003']) expect(isValidPetName(name), JSON.stringify(name)).toBe(false);
  });

  it('counts a lone surrogate as one code point, as Ajv does', () => {
    expect(codePointLength('\ud800')).toBe(1);
    expect(codePointLength('a\udc00\ud83d\udc15')).toBe(3);
  });
});

describe('petOf', () => {
  it('is the id with the NewPet members, as newPetOf copies them, and nothing else the input carries', () => {
    const input = { name: 'Rex', categoryId: 3n, status: 'sold', id: 99n, owner: 'x' } as NewPet;
    expect(petOf(7n, input)).toStrictEqual({ id: 7n, ...newPetOf(input) });
    expect(Object.keys(petOf(7n, input))).toEqual(['id', 'name', 'categoryId', 'status']);
  });

  it('leaves status out when the new pet has none, rather than writing it as undefined', () => {
    expect(Object.keys(petOf(1n, { name: 'Rex', categoryId: 0n }))).toEqual(['id', 'name', 'categoryId']);
  });
});

