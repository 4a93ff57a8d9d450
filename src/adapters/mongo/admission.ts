import pLimit, { type LimitFunction } from 'p-limit';
import { setTimeoutAt } from './timeout-at.js';

/** Storage work whose turn did not come before its deadline; nothing of it reached MongoDB. */
export class MongoAdmissionRefused extends Error {
  constructor(waitedMs: number) {
    super(`The MongoDB operation could not start within ${Math.round(waitedMs)} ms: too many operations were waiting`);
    this.name = 'MongoAdmissionRefused';
  }
}

/**
 * At most `concurrency` storage operations run at once; the others wait their turn, in order. One whose turn
 * has not come by its deadline is refused before it sends anything, so a burst gets clean refusals instead of
 * operations that time out halfway through a write (stored, yet answered 503).
 */
export class Admission {
  private readonly limit: LimitFunction;

  constructor(concurrency: number) {
    this.limit = pLimit(concurrency);
  }

  /**
   * Runs `work` once admitted and holds its slot until the work settles; rejects with MongoAdmissionRefused at
   * `deadline` (a performance.now() instant) if it is still waiting.
   */
  run(work: () => Promise<void>, deadline: number): Promise<void> {
    // A free slot and nobody waiting: the work starts at once, so there is no wait to bound.
    if (this.limit.activeCount < this.limit.concurrency && this.limit.pendingCount === 0) return this.limit(work);
    const waitFrom = performance.now();
    return new Promise<void>((resolve, reject) => {
      let refused = false;
      const timer = setTimeoutAt(() => {
        refused = true;
        reject(new MongoAdmissionRefused(performance.now() - waitFrom));
      }, deadline);
      void this.limit(async () => {
        // Its caller was answered already: the slot passes on without a round trip.
        if (refused) return;
        clearTimeout(timer);
        await work().then(resolve, reject);
      });
    });
  }
}
