import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { OpenedStorage, StorageBackend, StorageContext } from '../../src/ports/storage-backend.js';
import { STORAGE_BACKENDS, type StorageName } from '../../src/storage-backends.js';
import { STORAGE_TEST_SETUPS, type StorageTestSetup } from '../support/storage-test-setups.js';
import { petRepositoryContract } from './pet-repository-contract.js';
import { rateLimiterContract } from './rate-limiter-contract.js';

// Every backend of the table the service picks from, through the open() the service calls: registering a
// backend is what puts it under the contracts, with no way to leave a case out.
const backends: readonly StorageBackend[] = STORAGE_BACKENDS;

interface Opened {
  readonly storage: OpenedStorage;
  close(): Promise<void>;
}

async function openFresh(backend: StorageBackend, hint: string, context: Pick<StorageContext, 'clock' | 'rateLimits'>): Promise<Opened> {
  const setup = STORAGE_TEST_SETUPS[backend.name as StorageName] as StorageTestSetup<unknown>;
  const settings = setup.fresh(hint);
  const storage = await backend.open(settings, {
    ...context,
    log: pino({ level: 'silent' }),
    settingError: (setting, reason) => new Error(`${setting}: ${reason}`),
  });
  return {
    storage,
    close: async () => {
      const { perKey, authFailures } = storage.rateLimits;
      await Promise.all([perKey?.close(), authFailures?.close()]);
      await storage.close();
      await setup.cleanUp(settings);
    },
  };
}

const LIMITS_OFF = { perMinute: 0, authFailuresPerMinute: 1 };

for (const backend of backends) {
  petRepositoryContract(backend.name, async () => {
    const { storage, close } = await openFresh(backend, 'contract', { clock: { now: () => Date.now() }, rateLimits: LIMITS_OFF });
    return { repository: storage.pets, close };
  });

  rateLimiterContract(backend.name, async (limit, now) => {
    const { storage, close } = await openFresh(backend, 'limits', { clock: { now }, rateLimits: { perMinute: limit, authFailuresPerMinute: limit } });
    return { limiter: storage.rateLimits.perKey!, close };
  });

  describe(`${backend.name} (opened storage)`, () => {
    it('answers reachable once opened, has no limiter at a quota of 0, and names its counters as Prometheus counters', async () => {
      const { storage, close } = await openFresh(backend, 'opened', { clock: { now: () => Date.now() }, rateLimits: LIMITS_OFF });
      try {
        expect(await storage.isReachable()).toBe(true);
        expect(storage.rateLimits).toEqual({});
        for (const counter of storage.counters) {
          expect(counter.name).toMatch(/^animal_store_[a-z0-9_]+_total$/);
          expect(counter.help.length).toBeGreaterThan(0);
        }
      } finally {
        await close();
      }
    });
  });
}

describe('the storage table', () => {
  it('registers each backend once, by a distinct name', () => {
    const names = backends.map((backend) => backend.name);
    expect(names.length).toBeGreaterThan(1);
    expect(new Set(names).size).toBe(names.length);
  });
});
