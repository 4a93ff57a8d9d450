import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/src/phase.js';
import { summarize } from '../../bench/src/report.js';
import { roundRatios, tracingTable } from '../../bench/src/tables.js';

const round = (reqPerSec: number): Measurement =>
  ({ reqPerSec, cpuUsPerReq: 1e6 / reqPerSec, p50: 1, p99: 2, max: 3, requests: reqPerSec, seconds: 1, errors: 0, non2xx: 0, cpuWaitPct: 0, clientWaitPct: 0,
    pid: 1, loop: { maxMs: 1, markCompacts: 0 }, machineLoop: null }) as unknown as Measurement;

describe('the tracing table', () => {
  // The host drifts between rounds: the servers of one round are compared with each other, not across rounds.
  const off = [1000, 2000, 3000].map(round);
  const onePercent = [950, 1900, 2850].map(round);
  const hundred = [500, 1000, 1500].map(round);

  it('takes each round ratio within the round', () => {
    expect(roundRatios(onePercent, off)).toEqual([0.95, 0.95, 0.95]);
  });

  it('reports the median of the rounds ratios, and each round', () => {
    // The medians of req/s (2000 and 2000) come from different rounds: their ratio, 1.00x, compares across rounds.
    const drifted = [2000, 960, 2700].map(round);
    const table = tracingTable([{ workload: 'list', servers: { service: summarize(off), 'traced 1%': summarize(drifted), 'traced 100%': summarize(hundred) } }]);
    expect(table).toContain('| 0.50x (0.50 0.50 0.50) |');
    expect(table).toContain('| 0.90x (2.00 0.48 0.90) |');
  });
});
