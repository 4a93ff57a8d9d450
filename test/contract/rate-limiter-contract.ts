import { afterEach, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { FakeClock } from '../support/fake-clock.js';

export interface LimiterUnderTest {
  /** A per-minute limiter of `limit` hits, as the service counts requests per key. */
  readonly limiter: RateLimiter;
  /** Stops it and releases whatever the factory opened (connections, databases). */
  close(): Promise<void>;
}

export type MakeRateLimiter = (limit: number, now: () => number) => Promise<LimiterUnderTest>;

// A window boundary (windows are aligned to the epoch), far from now so real TTL monitors leave records alone.
const WINDOW_START = Date.UTC(2030, 0, 1);

/** What every RateLimiter adapter must do; the same cases run for every registered storage backend. */
export function rateLimiterContract(name: string, make: MakeRateLimiter): void {
  describe(`${name} (RateLimiter contract)`, () => {
    const opened: LimiterUnderTest[] = [];
    const open = async (limit: number, clock: FakeClock) => {
      const subject = await make(limit, () => clock.now());
      opened.push(subject);
      return subject.limiter;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((subject) => subject.close()));
    });

    it('counts each hit, this one included, and each key on its own', async () => {
      const limiter = await open(3, new FakeClock(WINDOW_START + 1000));
      expect([limiter.hit('a'), limiter.hit('a'), limiter.hit('b')].map((use) => use.used)).toEqual([1, 2, 1]);
      expect(limiter.limit).toBe(3);
      expect(limiter.windowSeconds).toBe(60);
    });

    it('reads a count without adding to it', async () => {
      const limiter = await open(3, new FakeClock(WINDOW_START));
      expect(limiter.peek('a').used).toBe(0);
      limiter.hit('a');
      expect(limiter.peek('a').used).toBe(1);
      expect(limiter.peek('a').used).toBe(1);
    });

    it('says how long until the window ends, windows aligned to the epoch', async () => {
      const clock = new FakeClock(WINDOW_START + 15_000);
      const limiter = await open(3, clock);
      expect(limiter.hit('a').resetInMs).toBe(45_000);
      clock.advance(44_999);
      expect(limiter.peek('a')).toEqual({ used: 1, resetInMs: 1 });
    });

    it('starts again from zero in the next window', async () => {
      const clock = new FakeClock(WINDOW_START + 59_000);
      const limiter = await open(2, clock);
      limiter.hit('a');
      limiter.hit('a');
      clock.advance(1000);
      expect(limiter.peek('a').used).toBe(0);
      expect(limiter.hit('a')).toEqual({ used: 1, resetInMs: 60_000 });
    });
  });
}
