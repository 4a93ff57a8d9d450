import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IdempotencyClaim, IdempotencyStore } from '../../src/ports/idempotency-store.js';

export interface IdempotencyStoreUnderTest {
  readonly store: IdempotencyStore;
  close(): Promise<void>;
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);

const claimOf = (key: string, fingerprint: string, now = T0): IdempotencyClaim => ({
  key,
  fingerprint,
  now,
  ttlMs: 24 * HOUR,
  leaseMs: 60_000,
});

/** The behaviour every IdempotencyStore must have; each case gets a fresh, empty store. */
export function idempotencyStoreContract(name: string, makeFresh: () => Promise<IdempotencyStoreUnderTest>): void {
  describe(`${name} (IdempotencyStore contract)`, () => {
    let subject: IdempotencyStoreUnderTest;
    let store: IdempotencyStore;

    beforeEach(async () => {
      subject = await makeFresh();
      store = subject.store;
    });
    afterEach(() => subject.close());

    it('gives the first claim to the caller and shows later claims the record in progress', async () => {
      expect(await store.claim(claimOf('k1', 'fp'))).toBeUndefined();
      expect(await store.claim(claimOf('k1', 'fp'))).toEqual({ state: 'in_progress', fingerprint: 'fp' });
      expect(await store.claim(claimOf('k1', 'other'))).toEqual({ state: 'in_progress', fingerprint: 'fp' });
    });

    it('replays the completed response', async () => {
      await store.claim(claimOf('k2', 'fp'));
      await store.complete('k2', { status: 201, location: '/v1/pets/9', body: '{"id":9}' });
      expect(await store.claim(claimOf('k2', 'fp', T0 + HOUR))).toEqual({
        state: 'done',
        fingerprint: 'fp',
        response: { status: 201, location: '/v1/pets/9', body: '{"id":9}' },
      });
    });

    it('forgets a completed response after its time to live', async () => {
      await store.claim(claimOf('k3', 'fp'));
      await store.complete('k3', { status: 201, body: '{}' });
      expect(await store.claim(claimOf('k3', 'fp2', T0 + 24 * HOUR + 1))).toBeUndefined();
      expect(await store.claim(claimOf('k3', 'fp2', T0 + 24 * HOUR + 2))).toEqual({ state: 'in_progress', fingerprint: 'fp2' });
    });

    it('lets a released key be claimed again', async () => {
      await store.claim(claimOf('k4', 'fp'));
      await store.release('k4');
      expect(await store.claim(claimOf('k4', 'fp'))).toBeUndefined();
    });

    it('treats an abandoned claim as absent once its lease ends', async () => {
      await store.claim(claimOf('k5', 'fp'));
      expect(await store.claim(claimOf('k5', 'fp', T0 + 59_000))).toEqual({ state: 'in_progress', fingerprint: 'fp' });
      expect(await store.claim(claimOf('k5', 'fp', T0 + 61_000))).toBeUndefined();
    });

    it('hands a key to exactly one of many concurrent claimants', async () => {
      const results = await Promise.all(Array.from({ length: 30 }, () => store.claim(claimOf('k6', 'fp'))));
      expect(results.filter((result) => result === undefined)).toHaveLength(1);
    });

    it('keeps keys apart', async () => {
      expect(await store.claim(claimOf('a', 'fp'))).toBeUndefined();
      expect(await store.claim(claimOf('b', 'fp'))).toBeUndefined();
    });
  });
}
