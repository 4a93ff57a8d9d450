import { monitorEventLoopDelay } from 'node:perf_hooks';

/*
 * Preloaded into every server the bench starts (node --expose-gc --import), the service included, which
 * stays unmodified: it answers the harness over the IPC channel the harness opens. 'gc' runs a full GC
 * (so the harness reads a resident set free of request garbage), 'loop' reports the event loop's delay
 * since the last 'loop' (max, p99, mean in ms) and starts over. The histogram records the interval between
 * ticks of a 5 ms timer, the 5 ms included: a stall is how much later than that the timer fired.
 */
const RESOLUTION_MS = 5;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
const lateness = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
delay.enable();

export interface LoopDelay { readonly maxMs: number; readonly p99Ms: number; readonly meanMs: number }

process.on('message', (message: unknown) => {
  if (message === 'gc') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ gc: true });
  } else if (message === 'loop') {
    const loop: LoopDelay = { maxMs: lateness(delay.max), p99Ms: lateness(delay.percentile(99)), meanMs: lateness(delay.mean) };
    delay.reset();
    process.send?.({ loop });
  }
});
// The channel must not keep a server alive that is asked to stop.
process.channel?.unref();
