import type { RateLimiter, RateLimits, RateLimitSettings, WindowUse } from '../../ports/rate-limiter.js';

interface Count {
  window: number;
  used: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Fixed windows aligned to the epoch (every instance and every store agrees where a window starts), counted
 * in a Map: one lookup and one addition per hit, no promise, no timer per key.
 */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, Count>();
  private readonly windowMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    readonly name: string,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.windowMs = windowSeconds * 1000;
    // Counts of past windows are ignored on read; the sweep only bounds memory.
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS).unref();
  }

  hit(key: string): WindowUse {
    return this.add(key, 1);
  }

  peek(key: string): WindowUse {
    return this.add(key, 0);
  }

  /** Adds `hits` to the key's current window (0 reads it); the base of the MongoDB adapter's local counts. */
  add(key: string, hits: number): WindowUse {
    const now = this.now();
    const window = Math.floor(now / this.windowMs);
    let count = this.counts.get(key);
    if (count === undefined) {
      if (hits === 0) return { used: 0, resetInMs: (window + 1) * this.windowMs - now };
      count = { window, used: 0 };
      this.counts.set(key, count);
    } else if (count.window !== window) {
      count.window = window;
      count.used = 0;
    }
    count.used += hits;
    return { used: count.used, resetInMs: (window + 1) * this.windowMs - now };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const window = Math.floor(this.now() / this.windowMs);
    for (const [key, count] of this.counts) if (count.window !== window) this.counts.delete(key);
  }
}

/** Limits counted in this process (STORAGE=memory: one instance). */
export function inMemoryRateLimits(settings: RateLimitSettings, now?: () => number): RateLimits {
  if (settings.perMinute === 0) return {};
  return {
    perKey: new InMemoryRateLimiter('per-key', settings.perMinute, 60, now),
    authFailures: new InMemoryRateLimiter('auth-failures', settings.authFailuresPerMinute, 60, now),
  };
}
