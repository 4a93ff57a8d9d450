import { describe, expect, it } from 'vitest';
import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';
import { INT64_MAX, INT64_MIN, PET_STATUSES, type NewPet } from '../../src/core/pet.js';

// The PetRepository contract runs on every registered backend: test/contract/storage-backends.test.ts.

// What the binary search and the per-status lists could get wrong and the contract's few pets would not show.
describe('InMemoryPetRepository with 5,000 pets', () => {
  const COUNT = 5000;
  const names = ['a', 'Füchschen', '🦊 fox', 'lone \ud800 high', 'Ω', ' x ', 'ÿ'.repeat(255)];
  const nth = (n: number): NewPet => {
    const status = n % 4 === 3 ? undefined : PET_STATUSES[n % 4];
    const name = `${names[n % names.length]!}${n}`;
    const categoryId = n % 5 === 0 ? INT64_MIN + BigInt(n) : n % 5 === 1 ? INT64_MAX - BigInt(n) : BigInt(n);
    return status === undefined ? { name, categoryId } : { name, categoryId, status };
  };
  const filled = async () => {
    const repo = new InMemoryPetRepository();
    for (let n = 0; n < COUNT; n++) await repo.add(nth(n));
    return repo;
  };

  it('gives back every field exactly', async () => {
    const repo = await filled();
    for (let n = 0; n < COUNT; n++) expect(await repo.findById(BigInt(n + 1))).toEqual({ id: BigInt(n + 1), ...nth(n) });
    expect(await repo.count()).toBe(COUNT);
  });

  it('pages through every status in order, after any id', async () => {
    const repo = await filled();
    for (const status of [...PET_STATUSES, undefined]) {
      const expected = Array.from({ length: COUNT }, (_, n) => ({ id: BigInt(n + 1), ...nth(n) })).filter(
        (pet) => status === undefined || pet.status === status,
      );
      const seen = [];
      let afterId: bigint | undefined;
      for (;;) {
        const page = await repo.list({ limit: 97, status, afterId });
        if (page.length === 0) break;
        seen.push(...page);
        afterId = page.at(-1)!.id;
      }
      expect(seen).toEqual(expected);
      // An id between two of this status's pets continues at the next one; ids outside the store bound it.
      expect((await repo.list({ limit: 1, status, afterId: expected[10]!.id - 1n }))[0]).toEqual(expected[10]);
      expect((await repo.list({ limit: 1, status, afterId: -5n }))[0]).toEqual(expected[0]);
      expect(await repo.list({ limit: 1, status, afterId: INT64_MAX })).toEqual([]);
    }
  });

  it('answers a pet read twice with the same object', async () => {
    const repo = new InMemoryPetRepository();
    const created = await repo.add({ name: 'Rex', categoryId: 1n });
    expect(await repo.findById(created.id)).toBe(created);
    expect((await repo.list({ limit: 1 }))[0]).toBe(created);
  });
});
