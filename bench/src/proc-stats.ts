import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchServer } from './servers.js';

// What the kernel says about a process: CPU time, time spent waiting for a CPU, resident memory.

// Clock ticks per second for /proc/<pid>/stat; 100 on every Linux this runs on (getconf CLK_TCK).
const CLK_TCK = 100;

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/**
 * Nanoseconds the server's main thread (the event loop) has spent runnable but waiting for a CPU taken by
 * another process (/proc/<pid>/schedstat, second field); NaN where the kernel does not keep it.
 */
export function runQueueWaitNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return NaN;
  }
}

/** Resident set now (VmRSS) and at its peak (VmHWM), in bytes. */
export function memory(pid: number): { rss: number; peakRss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
}

/** Full GC in the server, then its settled resident set in bytes. */
export async function settledRss(server: BenchServer): Promise<number> {
  await server.fullGc();
  await sleep(200);
  return memory(server.pid).rss;
}
