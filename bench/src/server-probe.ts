import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/*
 * Preloaded into every server the bench starts (node --expose-gc --import), the service included, which
 * stays unmodified: it answers the harness over the IPC channel the harness opens. 'gc' runs a full GC
 * (so the harness reads a resident set free of request garbage), 'loop' reports the event loop's delay
 * since the last 'loop' (max, p99, mean in ms) and the mark-compacts V8 ran meanwhile, and starts over.
 * The histogram records the interval between ticks of a 5 ms timer, the 5 ms included: a stall is how
 * much later than that the timer fired.
 */
const RESOLUTION_MS = 5;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const lateness = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
delay.enable();

// A mark-compact (major GC) marks the whole heap: on a server held to one CPU its helper thread takes that CPU
// from the event loop for 100 to 200 ms, which is what a half-peak round with a p99 near 100 ms had in common.
let markCompacts = 0;
let longestMarkCompactMs = 0;
new PerformanceObserver((entries) => {
  for (const entry of entries.getEntries()) {
    if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
    markCompacts++;
    longestMarkCompactMs = Math.max(longestMarkCompactMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

export interface LoopDelay {
  readonly maxMs: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** V8 mark-compacts (major GCs) over the same span; the full GCs the harness asks for ('gc') are counted too. */
  readonly markCompacts: number;
  /** The longest of their pauses of the event loop, ms (the atomic pause, not the concurrent marking before it). */
  readonly longestMarkCompactMs: number;
}

process.on('message', (message: unknown) => {
  if (message === 'gc') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ gc: true });
  } else if (message === 'loop') {
    const loop: LoopDelay = { maxMs: lateness(delay.max), p99Ms: lateness(delay.percentile(99)), meanMs: lateness(delay.mean), markCompacts, longestMarkCompactMs };
    delay.reset();
    markCompacts = 0;
    longestMarkCompactMs = 0;
    process.send?.({ loop });
  }
});
// The channel must not keep a server alive that is asked to stop.
process.channel?.unref();
