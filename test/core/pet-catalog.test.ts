import { beforeEach, describe, expect, it } from 'vitest';
import { HashedApiKeyVerifier } from '../../src/adapters/keys/hashed-api-key-verifier.js';
import { InMemoryPetRepository } from '../../src/adapters/memory/in-memory-pet-repository.js';
import { IdempotencyKeyReused, InvalidApiKey, MissingApiKey, PetNotFound, ValidationFailed } from '../../src/core/errors.js';
import { PetCatalog } from '../../src/core/pet-catalog.js';
import { INT64_MAX, type NewPet } from '../../src/core/pet.js';

describe('PetCatalog', () => {
  let catalog: PetCatalog;

  beforeEach(() => {
    catalog = new PetCatalog(new InMemoryPetRepository(), new HashedApiKeyVerifier(['right-key']));
  });

  describe('authenticate', () => {
    it('returns a stable id for a configured key that does not reveal the key', () => {
      const id = catalog.authenticate('right-key');
      expect(id).toBe(catalog.authenticate('right-key'));
      expect(id).not.toContain('right-key');
    });

    it('rejects a missing key with missing_api_key', () => {
      expect(() => catalog.authenticate(undefined)).toThrowError(MissingApiKey);
    });

    it('rejects an unknown key with invalid_api_key', () => {
      expect(() => catalog.authenticate('wrong-key')).toThrowError(InvalidApiKey);
      expect(() => catalog.authenticate('')).toThrowError(InvalidApiKey);
    });
  });

  describe('addPet', () => {
    it('stores the pet under a new ascending id', async () => {
      const first = await catalog.addPet({ name: 'Rex', categoryId: 1n, status: 'available' });
      const second = await catalog.addPet({ name: 'Tom', categoryId: INT64_MAX });
      expect(first).toEqual({ pet: { id: first.pet.id, name: 'Rex', categoryId: 1n, status: 'available' }, replayed: false });
      expect(second.pet.id > first.pet.id).toBe(true);
      expect(await catalog.getPet(second.pet.id)).toEqual({ id: second.pet.id, name: 'Tom', categoryId: INT64_MAX });
    });

    it('replays the pet an idempotency key already made, and refuses the key for another request', async () => {
      const request = (key: string, fingerprint: string) => ({ key, fingerprint, now: 0, expiresAt: 1000 });
      const first = await catalog.addPet({ name: 'Once', categoryId: 1n }, request('request-1', 'a'));
      expect(await catalog.addPet({ name: 'Once', categoryId: 1n }, request('request-1', 'a'))).toEqual({ pet: first.pet, replayed: true });
      await expect(catalog.addPet({ name: 'Twice', categoryId: 1n }, request('request-1', 'b'))).rejects.toThrowError(IdempotencyKeyReused);
      const other = await catalog.addPet({ name: 'Once', categoryId: 1n }, request('request-2', 'a'));
      expect(other.pet.id > first.pet.id).toBe(true);
      expect((await catalog.listPets({ limit: 100 })).pets).toEqual([first.pet, other.pet]);
    });

    it.each([
      ['name', { name: '', categoryId: 1n }],
      ['name', { name: '   ', categoryId: 1n }],
      ['name', { name: 'x'.repeat(256), categoryId: 1n }],
      ['categoryId', { name: 'Rex', categoryId: 2n ** 63n }],
      ['categoryId', { name: 'Rex', categoryId: 5 }],
      ['status', { name: 'Rex', categoryId: 1n, status: 'lost' }],
    ])('rejects an invalid %s with validation_failed and stores nothing', async (field, pet) => {
      const rejection = catalog.addPet(pet as unknown as NewPet);
      await expect(rejection).rejects.toThrowError(ValidationFailed);
      await expect(rejection).rejects.toMatchObject({ code: 'validation_failed', field });
      expect((await catalog.listPets({ limit: 100 })).pets).toEqual([]);
    });
  });

  describe('getPet', () => {
    it('fails with pet_not_found for an unknown id', async () => {
      await expect(catalog.getPet(42n)).rejects.toMatchObject({ code: 'pet_not_found' });
      await expect(catalog.getPet(42n)).rejects.toThrowError(PetNotFound);
    });
  });

  describe('listPets', () => {
    it('returns one page and the id to continue after when more pets match', async () => {
      for (let i = 0; i < 5; i++) await catalog.addPet({ name: `p${i}`, categoryId: 1n, status: 'sold' });
      const first = await catalog.listPets({ limit: 2 });
      expect(first.pets.map((pet) => pet.name)).toEqual(['p0', 'p1']);
      expect(first.nextAfterId).toBe(first.pets[1]!.id);
      const last = await catalog.listPets({ limit: 3, afterId: first.nextAfterId! });
      expect(last.pets.map((pet) => pet.name)).toEqual(['p2', 'p3', 'p4']);
      expect(last.nextAfterId).toBeUndefined();
    });

    it('filters by status', async () => {
      await catalog.addPet({ name: 'a', categoryId: 1n, status: 'sold' });
      await catalog.addPet({ name: 'b', categoryId: 1n, status: 'pending' });
      await catalog.addPet({ name: 'c', categoryId: 1n });
      const page = await catalog.listPets({ limit: 20, status: 'pending' });
      expect(page.pets.map((pet) => pet.name)).toEqual(['b']);
    });

    it.each([0, 101, 1.5, Number.NaN])('rejects limit %s with validation_failed', async (limit) => {
      await expect(catalog.listPets({ limit })).rejects.toMatchObject({ code: 'validation_failed', field: 'limit' });
    });
  });
});
