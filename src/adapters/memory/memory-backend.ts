import type { StorageBackend } from '../../ports/storage-backend.js';
import { InMemoryPetRepository } from './in-memory-pet-repository.js';
import { inMemoryRateLimits } from './in-memory-rate-limiter.js';

/** STORAGE=memory: everything in this process, gone when it stops; one instance only. No settings. */
export const memoryBackend: StorageBackend<'memory', undefined> = {
  name: 'memory',
  open: async (_settings, { clock, rateLimits }) => {
    const pets = new InMemoryPetRepository();
    return {
      pets,
      rateLimits: inMemoryRateLimits(rateLimits, () => clock.now()),
      isReachable: () => pets.isReachable(),
      counters: [],
      close: async () => {},
    };
  },
};
