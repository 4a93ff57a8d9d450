import { describe, expect, it } from 'vitest';
import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';
import { CHUNK_BITS } from '../../src/adapters/memory/pet-columns.js';
import { INT64_MAX, INT64_MIN, PET_STATUSES, type NewPet } from '../../src/core/pet.js';
import { petRepositoryContract } from '../contract/pet-repository-contract.js';

petRepositoryContract('InMemoryPetRepository', async () => ({
  repository: new InMemoryPetRepository(),
  close: async () => {},
}));

// What the columns (pet-columns.ts) could get wrong and the contract's few pets would not show: with chunks of 64
// records, many chunk boundaries of every column and of each status's index; with the real size, a few.
describe.each([
  { chunkBits: 6, COUNT: 5000 },
  { chunkBits: CHUNK_BITS, COUNT: 4 * 2 ** CHUNK_BITS + 123 },
])('InMemoryPetRepository columns in chunks of 2^$chunkBits records, $COUNT pets', ({ chunkBits, COUNT }) => {
  const chunkRecords = 2 ** chunkBits;
  const names = ['a', 'Füchschen', '🦊 fox', 'lone \ud800 high', 'lone \udfff low', 'Ω', '\u00ff\u0100', ' x ', 'ÿ'.repeat(255)];
  const nth = (n: number): NewPet => {
    const status = n % 4 === 3 ? undefined : PET_STATUSES[n % 4];
    const name = `${names[n % names.length]!}${n}`;
    const categoryId = n % 5 === 0 ? INT64_MIN + BigInt(n) : n % 5 === 1 ? INT64_MAX - BigInt(n) : BigInt(n);
    return status === undefined ? { name, categoryId } : { name, categoryId, status };
  };

  // Names of 255 bytes every ninth pet make each chunk's names outgrow the room it starts with.
  it('gives back every field exactly, across chunks and names outgrowing their first buffer', async () => {
    const repo = new InMemoryPetRepository(chunkBits);
    for (let n = 0; n < COUNT; n++) {
      const added = await repo.add(nth(n));
      expect(added).toEqual({ id: BigInt(n + 1), ...nth(n) });
    }
    for (let n = 0; n < COUNT; n++) expect(await repo.findById(BigInt(n + 1))).toEqual({ id: BigInt(n + 1), ...nth(n) });
    expect(await repo.count()).toBe(COUNT);
  });

  it('pages through every status in order, after any id', async () => {
    const repo = new InMemoryPetRepository(chunkBits);
    for (let n = 0; n < COUNT; n++) await repo.add(nth(n));
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
      // An id between two of this status's pets continues at the next one.
      expect((await repo.list({ limit: 1, status, afterId: expected[10]!.id - 1n }))[0]).toEqual(expected[10]);
    }
  });

  it('answers a pet read twice with the same object, and a created pet before its first read', async () => {
    const repo = new InMemoryPetRepository();
    const created = await repo.add({ name: 'Rex', categoryId: 1n });
    const read = await repo.findById(created.id);
    expect(read).toEqual(created);
    expect(await repo.findById(created.id)).toBe(read);
    expect((await repo.list({ limit: 1 }))[0]).toBe(read);
  });

  it('refuses a categoryId outside int64 instead of storing it wrapped', async () => {
    const repo = new InMemoryPetRepository();
    await expect(repo.add({ name: 'Big', categoryId: INT64_MAX + 1n })).rejects.toThrow(RangeError);
    await expect(repo.add({ name: 'Small', categoryId: INT64_MIN - 1n })).rejects.toThrow(RangeError);
    expect(await repo.count()).toBe(0);
  });

  it('stays whole when a refused pet falls on a chunk boundary', async () => {
    const repo = new InMemoryPetRepository(chunkBits);
    for (let n = 0; n < chunkRecords; n++) await repo.add(nth(n));
    await expect(repo.add({ name: 'Big', categoryId: INT64_MAX + 1n })).rejects.toThrow(RangeError);
    for (let n = chunkRecords; n < chunkRecords + 3; n++) await repo.add(nth(n));
    expect(await repo.count()).toBe(chunkRecords + 3);
    for (const n of [chunkRecords - 1, chunkRecords, chunkRecords + 2]) expect(await repo.findById(BigInt(n + 1))).toEqual({ id: BigInt(n + 1), ...nth(n) });
  });
});
