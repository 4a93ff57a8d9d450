import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdempotencyKeyReused } from '../../src/core/errors.js';
import { INT64_MAX, INT64_MIN, type NewPet } from '../../src/core/pet.js';
import type { PetRepository } from '../../src/ports/pet-repository.js';

export interface RepositoryUnderTest {
  readonly repository: PetRepository;
  /** Releases whatever the factory opened (connections, databases). */
  close(): Promise<void>;
}

/**
 * The behaviour every PetRepository adapter must have. Each case gets a fresh, empty store.
 * No options: an adapter that cannot pass a case is not a PetRepository.
 */
export function petRepositoryContract(name: string, makeFresh: () => Promise<RepositoryUnderTest>): void {
  describe(`${name} (PetRepository contract)`, () => {
    let subject: RepositoryUnderTest;
    let repo: PetRepository;

    beforeEach(async () => {
      subject = await makeFresh();
      repo = subject.repository;
    });
    afterEach(async () => {
      await subject.close();
    });

    const addAll = async (pets: readonly NewPet[]) => {
      const added = [];
      for (const pet of pets) added.push(await repo.add(pet));
      return added;
    };

    it('assigns ascending ids and returns the stored fields', async () => {
      const first = await repo.add({ name: 'Rex', categoryId: 1n, status: 'available' });
      const second = await repo.add({ name: 'Tom', categoryId: 2n });
      expect(first).toEqual({ id: first.id, name: 'Rex', categoryId: 1n, status: 'available' });
      expect(second).toEqual({ id: second.id, name: 'Tom', categoryId: 2n });
      expect(typeof first.id).toBe('bigint');
      expect(second.id > first.id).toBe(true);
    });

    it('keeps a pet without status without a status field', async () => {
      const added = await repo.add({ name: 'Nameless', categoryId: 3n });
      const found = await repo.findById(added.id);
      expect(found).toEqual({ id: added.id, name: 'Nameless', categoryId: 3n });
      expect(found !== undefined && 'status' in found).toBe(false);
    });

    it('round-trips the int64 extremes of categoryId exactly', async () => {
      const max = await repo.add({ name: 'Max', categoryId: INT64_MAX });
      const min = await repo.add({ name: 'Min', categoryId: INT64_MIN });
      expect((await repo.findById(max.id))?.categoryId).toBe(INT64_MAX);
      expect((await repo.findById(min.id))?.categoryId).toBe(INT64_MIN);
      const listed = await repo.list({ limit: 10 });
      expect(listed.map((pet) => pet.categoryId)).toEqual([INT64_MAX, INT64_MIN]);
    });

    it('refuses a categoryId outside int64 with a RangeError and stores nothing', async () => {
      await expect(repo.add({ name: 'Big', categoryId: INT64_MAX + 1n })).rejects.toThrow(RangeError);
      await expect(repo.add({ name: 'Small', categoryId: INT64_MIN - 1n })).rejects.toThrow(RangeError);
      expect(await repo.list({ limit: 10 })).toEqual([]);
    });

    it('keeps unicode names intact', async () => {
      const pet = await repo.add({ name: 'Füchschen 🦊 "quoted" \\ back', categoryId: 4n });
      expect((await repo.findById(pet.id))?.name).toBe('Füchschen 🦊 "quoted" \\ back');
    });

    it('finds nothing for ids it never assigned', async () => {
      const pet = await repo.add({ name: 'Only', categoryId: 1n });
      expect(await repo.findById(pet.id + 1000n)).toBeUndefined();
      expect(await repo.findById(-1n)).toBeUndefined();
      expect(await repo.findById(INT64_MAX)).toBeUndefined();
    });

    it('lists in ascending id order up to the limit', async () => {
      const added = await addAll([
        { name: 'a', categoryId: 1n },
        { name: 'b', categoryId: 1n },
        { name: 'c', categoryId: 1n },
      ]);
      expect(await repo.list({ limit: 2 })).toEqual(added.slice(0, 2));
      expect(await repo.list({ limit: 10 })).toEqual(added);
    });

    it('lists only pets of the requested status', async () => {
      const added = await addAll([
        { name: 'a', categoryId: 1n, status: 'sold' },
        { name: 'b', categoryId: 1n, status: 'available' },
        { name: 'c', categoryId: 1n },
        { name: 'd', categoryId: 1n, status: 'sold' },
      ]);
      expect(await repo.list({ limit: 10, status: 'sold' })).toEqual([added[0], added[3]]);
      expect(await repo.list({ limit: 10, status: 'available' })).toEqual([added[1]]);
      expect(await repo.list({ limit: 10, status: 'pending' })).toEqual([]);
    });

    it('continues after a given id, with or without a status filter', async () => {
      const added = await addAll(
        Array.from({ length: 6 }, (_, i) => ({ name: `p${i}`, categoryId: BigInt(i), status: i % 2 ? 'sold' : 'pending' }) as const),
      );
      expect(await repo.list({ limit: 2, afterId: added[1]!.id })).toEqual(added.slice(2, 4));
      expect(await repo.list({ limit: 10, status: 'sold', afterId: added[1]!.id })).toEqual([added[3], added[5]]);
      expect(await repo.list({ limit: 10, afterId: added[5]!.id })).toEqual([]);
      expect(await repo.list({ limit: 10, afterId: -5n })).toEqual(added);
    });

    it('hands out distinct ids to concurrent adds', async () => {
      const added = await Promise.all(
        Array.from({ length: 50 }, (_, i) => repo.add({ name: `c${i}`, categoryId: BigInt(i) })),
      );
      expect(new Set(added.map((pet) => pet.id)).size).toBe(50);
      expect(await repo.count()).toBe(50);
      expect((await repo.list({ limit: 100 })).length).toBe(50);
    });

    it('serves a request that has just arrived as any other call (arrivedAt)', async () => {
      const arrivedAt = performance.now();
      const pet = await repo.add({ name: 'Arrived', categoryId: 1n }, arrivedAt);
      expect(await repo.findById(pet.id, arrivedAt)).toEqual(pet);
      expect(await repo.list({ limit: 10 }, arrivedAt)).toEqual([pet]);
      const keyed = await repo.addOnce({ name: 'Keyed', categoryId: 1n }, once('k-arrived', 'f'), arrivedAt);
      expect(await repo.addOnce({ name: 'Keyed', categoryId: 1n }, once('k-arrived', 'f'), arrivedAt)).toEqual({ pet: keyed.pet, replayed: true });
    });

    it('counts stored pets', async () => {
      expect(await repo.count()).toBe(0);
      await addAll([{ name: 'a', categoryId: 1n }, { name: 'b', categoryId: 2n }]);
      expect(await repo.count()).toBe(2);
    });

    it('reports itself reachable when it is', async () => {
      expect(await repo.isReachable()).toBe(true);
    });

    const T0 = Date.UTC(2026, 0, 1);
    const TTL = 60_000;
    /** An idempotent create made at `now` with the given key and fingerprint. */
    const once = (key: string, fingerprint: string, now = T0) => ({ key, fingerprint, now, expiresAt: now + TTL });

    it('replays the pet the first addOnce stored for the same key and fingerprint, storing nothing, at any age', async () => {
      const first = await repo.addOnce({ name: 'Once', categoryId: 1n, status: 'sold' }, once('k-1', 'f-1'));
      const again = await repo.addOnce({ name: 'Once', categoryId: 1n, status: 'sold' }, once('k-1', 'f-1', T0 + 1000));
      const muchLater = await repo.addOnce({ name: 'Once', categoryId: 1n, status: 'sold' }, once('k-1', 'f-1', T0 + 10 * TTL));
      expect(first).toEqual({ pet: { id: first.pet.id, name: 'Once', categoryId: 1n, status: 'sold' }, replayed: false });
      expect(again).toEqual({ pet: first.pet, replayed: true });
      expect(muchLater).toEqual({ pet: first.pet, replayed: true });
      expect(await repo.count()).toBe(1);
      expect(await repo.list({ limit: 10 })).toEqual([first.pet]);
    });

    it('refuses the key with another fingerprint until it expires (IdempotencyKeyReused), storing nothing', async () => {
      const first = await repo.addOnce({ name: 'One', categoryId: 1n }, once('k-2', 'f-one'));
      for (const now of [T0, T0 + TTL - 1]) {
        const reused = repo.addOnce({ name: 'Two', categoryId: 1n }, once('k-2', 'f-two', now));
        await expect(reused).rejects.toBeInstanceOf(IdempotencyKeyReused);
        await expect(reused).rejects.toMatchObject({ code: 'idempotency_key_reused' });
      }
      expect(await repo.list({ limit: 10 })).toEqual([first.pet]);
    });

    it('binds an expired key to a new pet for another fingerprint; the key then names that pet', async () => {
      const old = await repo.addOnce({ name: 'Old', categoryId: 1n }, once('k-3', 'f-old'));
      const rebound = await repo.addOnce({ name: 'New', categoryId: 2n }, once('k-3', 'f-new', T0 + TTL));
      expect(rebound.replayed).toBe(false);
      expect(rebound.pet).toEqual({ id: rebound.pet.id, name: 'New', categoryId: 2n });
      expect(rebound.pet.id > old.pet.id).toBe(true);
      expect(await repo.addOnce({ name: 'New', categoryId: 2n }, once('k-3', 'f-new', T0 + TTL + 1))).toEqual({ pet: rebound.pet, replayed: true });
      await expect(repo.addOnce({ name: 'Old', categoryId: 1n }, once('k-3', 'f-old', T0 + TTL + 1))).rejects.toBeInstanceOf(IdempotencyKeyReused);
      // The old pet stays, without the key.
      expect(await repo.list({ limit: 10 })).toEqual([old.pet, rebound.pet]);
    });

    it('stores one pet per key, and a new pet for every add', async () => {
      const keyed = [await repo.addOnce({ name: 'a', categoryId: 1n }, once('k-a', 'f')), await repo.addOnce({ name: 'a', categoryId: 1n }, once('k-b', 'f'))];
      const unkeyed = [await repo.add({ name: 'a', categoryId: 1n }), await repo.add({ name: 'a', categoryId: 1n })];
      expect(new Set([...keyed.map((added) => added.pet), ...unkeyed].map((pet) => pet.id)).size).toBe(4);
      expect(await repo.count()).toBe(4);
      expect(await repo.addOnce({ name: 'a', categoryId: 1n }, once('k-b', 'f'))).toEqual({ pet: keyed[1]!.pet, replayed: true });
    });

    it('stores one pet for concurrent addOnce calls with one key, and answers it to each', async () => {
      const added = await Promise.all(
        Array.from({ length: 20 }, () => repo.addOnce({ name: 'race', categoryId: 1n }, once('race', 'f-race'))),
      );
      expect(new Set(added.map(({ pet }) => pet.id)).size).toBe(1);
      expect(added.filter(({ replayed }) => !replayed).length).toBe(1);
      expect(await repo.count()).toBe(1);
    });

    it('stores one pet for concurrent rebindings of one expired key, and refuses the other fingerprints', async () => {
      await repo.addOnce({ name: 'Old', categoryId: 1n }, once('k-4', 'f-old'));
      const later = T0 + 2 * TTL;
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => repo.addOnce({ name: `n${i % 2}`, categoryId: 1n }, once('k-4', `f-${i % 2}`, later))),
      );
      const added = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(new Set(added.map(({ pet }) => pet.id)).size).toBe(1);
      expect(added.filter(({ replayed }) => !replayed).length).toBe(1);
      expect(refused.every((reason) => reason instanceof IdempotencyKeyReused)).toBe(true);
      expect(added.length + refused.length).toBe(10);
      expect(await repo.count()).toBe(2);
    });

    it('keeps the idempotency key out of the pet', async () => {
      const { pet } = await repo.addOnce({ name: 'k', categoryId: 1n }, once('hidden', 'f'));
      expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name']);
      expect(Object.keys((await repo.findById(pet.id))!).sort()).toEqual(['categoryId', 'id', 'name']);
      expect(Object.keys((await repo.list({ limit: 1 }))[0]!).sort()).toEqual(['categoryId', 'id', 'name']);
    });

    it('does not keep members the NewPet type does not have', async () => {
      const sneaky = { name: 'x', categoryId: 1n, id: 999n, _id: 'y', extra: true } as unknown as NewPet;
      const pet = await repo.add(sneaky);
      expect(Object.keys((await repo.findById(pet.id))!).sort()).toEqual(['categoryId', 'id', 'name']);
      expect(pet.id).not.toBe(999n);
    });
  });
}
