import type { Clock } from '../../src/ports/clock.js';

/** A clock that only moves when told to. */
export class FakeClock implements Clock {
  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  set(epochMs: number): void {
    this.current = epochMs;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

/**
 * A clock standing at the start of a minute. Rate-limit windows are aligned to the clock, so every request of a
 * test that uses it falls in one window; with the system clock, a test crossing a minute boundary sees its count reset.
 */
export function clockAtWindowStart(): FakeClock {
  return new FakeClock(Date.UTC(2029, 0, 1));
}
