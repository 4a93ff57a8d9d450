import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newPetJson, petJson, petsJson } from '../../src/adapters/http/json.js';
import { PET_STATUSES, type Pet } from '../../src/core/pet.js';

const pets: fc.Arbitrary<Pet> = fc.record(
  {
    id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    name: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    categoryId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: ['id', 'name', 'categoryId'] },
);

// The exact JSON of a pet, bigints as bare digits: what a client's exact parser reads back.
const expected = (pet: Pet) => ({ ...pet, id: String(pet.id), categoryId: String(pet.categoryId) });
const read = (text: string) =>
  JSON.parse(text.replace(/"(id|categoryId)":(-?\d+)/g, '"$1":"$2"')) as unknown;

describe('pet JSON', () => {
  it('writes a page as the JSON array of its pets, byte for byte the joined texts, for 0 to 30 pets of any names', () => {
    fc.assert(
      fc.property(fc.array(pets, { maxLength: 30 }), (page) => {
        const bytes = petsJson(page);
        expect(String(bytes)).toBe(`[${page.map(newPetJson).join(',')}]`);
        expect(read(String(bytes))).toEqual(page.map(expected));
      }),
    );
  });

  it('remembers a pet\'s bytes: the same pet twice gives the same bytes, and a page does not alter them', () => {
    const pet: Pet = { id: 7n, name: 'Rex ✓', categoryId: 9223372036854775807n, status: 'sold' };
    const first = petJson(pet);
    expect(petJson(pet)).toBe(first);
    petsJson([pet, pet, pet]);
    expect(String(first)).toBe('{"id":7,"name":"Rex ✓","categoryId":9223372036854775807,"status":"sold"}');
  });

  it('keeps pets by value, not by object: a copy reads the same JSON, a pet stored anew under the same id its own', () => {
    const pet: Pet = { id: 8n, name: 'Tom', categoryId: 1n };
    petJson(pet);
    expect(petJson({ ...pet })).toBe('{"id":8,"name":"Tom","categoryId":1}');
    expect(petJson({ ...pet, name: 'Tim', status: 'pending' })).toBe('{"id":8,"name":"Tim","categoryId":1,"status":"pending"}');
    expect(petJson({ ...pet, categoryId: 2n })).toBe('{"id":8,"name":"Tom","categoryId":2}');
  });

  it('tells apart ids past 2^53 that are the same double', () => {
    const pet: Pet = { id: 2n ** 53n, name: 'Big', categoryId: 1n };
    expect(Number(pet.id)).toBe(Number(pet.id + 1n));
    expect(petJson(pet)).toBe('{"id":9007199254740992,"name":"Big","categoryId":1}');
    expect(petJson({ ...pet, id: pet.id + 1n })).toBe('{"id":9007199254740993,"name":"Big","categoryId":1}');
    expect(petJson(pet)).toBe('{"id":9007199254740992,"name":"Big","categoryId":1}');
  });
});
