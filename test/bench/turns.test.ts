import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/src/phase.js';
import { joinTurns } from '../../bench/src/turns.js';

const loop = (maxMs: number, meanMs: number, markCompacts: number) => ({ maxMs, p99Ms: maxMs / 2, meanMs, markCompacts, longestMarkCompactMs: markCompacts * 3 });

function turn(requests: number, seconds: number, cpuUsPerReq: number, cpuWaitPct: number, loopMaxMs: number): Measurement {
  return {
    requests, seconds, reqPerSec: requests / seconds, p50: NaN, p99: NaN, max: NaN, errors: 1, non2xx: 2,
    pid: 42, cpuUsPerReq, cpuWaitPct, clientWaitPct: 2 * cpuWaitPct,
    loop: loop(loopMaxMs, loopMaxMs / 10, 1), machineLoop: null,
  };
}

describe('a run taken in turns', () => {
  it('is one measurement: counts and CPU summed, shares weighted by time, the worst loop delay, latencies of every turn', () => {
    const times = Array.from({ length: 100 }, (_, i) => i + 1);
    const run = joinTurns([turn(6000, 1, 150, 10, 4), turn(2000, 1, 250, 30, 8)], times);
    expect(run.requests).toBe(8000);
    expect(run.seconds).toBe(2);
    expect(run.reqPerSec).toBe(4000);
    // (6000 x 150 + 2000 x 250) / 8000: the CPU of both turns over their requests, not the mean of their figures.
    expect(run.cpuUsPerReq).toBe(175);
    expect(run.cpuWaitPct).toBe(20);
    expect(run.clientWaitPct).toBe(40);
    expect([run.errors, run.non2xx]).toEqual([2, 4]);
    expect(run.loop).toEqual({ maxMs: 8, p99Ms: 4, meanMs: expect.closeTo(0.6), markCompacts: 2, longestMarkCompactMs: 3 });
    expect(run.machineLoop).toBeNull();
    expect([run.p50, run.p99, run.max]).toEqual([51, 100, 100]);
  });

  it('of one turn is that turn', () => {
    const only = turn(100, 1, 120, 5, 2);
    expect(joinTurns([only], [])).toBe(only);
  });
});
