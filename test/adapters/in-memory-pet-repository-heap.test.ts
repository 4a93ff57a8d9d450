import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';

// What creates keep on V8's heap. A JS array with a slot per pet grew by copying on every create, and each copy
// left the old generation garbage only a mark-compact frees (BENCHMARKS.md, issue 10, eighth session).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
// Objects past 128 KiB (a long array's elements) live in the large object space, which is old too.
const OLD_SPACES = new Set(['old_space', 'large_object_space']);
const oldSpaceUsed = () => getHeapSpaceStatistics().reduce((sum, space) => sum + (OLD_SPACES.has(space.space_name) ? space.space_used_size : 0), 0);
const CREATES = 50_000;
const WARM_UP = 20_000;

describe('what the memory repository keeps on the JS heap', () => {
  it('keeps nothing per pet created and not read (a slot per pet kept 414 KB here)', async () => {
    const repository = new InMemoryPetRepository();
    const add = (n: number) => repository.add({ name: `pet ${n}`, categoryId: 3n, status: 'pending' });
    // Measured after a first round of creates: the code those compile (bytecode, feedback, optimized code) lives
    // in the old generation too, and in a busy test run it alone came to 177 KB.
    for (let n = 0; n < WARM_UP; n++) await add(n);
    gc();
    const before = oldSpaceUsed();
    for (let n = WARM_UP; n < WARM_UP + CREATES; n++) await add(n);
    gc();
    expect(oldSpaceUsed() - before).toBeLessThan(100 * 1024);
    const last = BigInt(WARM_UP + CREATES);
    expect(await repository.findById(last)).toEqual({ id: last, name: `pet ${WARM_UP + CREATES - 1}`, categoryId: 3n, status: 'pending' });
  });
});
