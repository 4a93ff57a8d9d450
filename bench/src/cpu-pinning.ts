import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** How servers are started: a command prefix that pins them, and a line saying what was done. */
export interface Pinning {
  /** Prepended to each server's command: `taskset -c 0`, or nothing. */
  readonly serverPrefix: readonly string[];
  readonly note: string;
}

const SERVER_CPU = '0';
const LOAD_CPU = '1';

/**
 * Pins this process (the load generator: the peak and paced clients run in it) with all its threads to CPU 1, and gives
 * the servers a prefix that starts them on CPU 0: server and client never compete for a core. Anything
 * started before this call (the MongoDB server) keeps every CPU.
 */
export function pinCores(wanted: boolean): Pinning {
  const unpinned = (why: string): Pinning => ({ serverPrefix: [], note: `not pinned: ${why}` });
  if (!wanted) return unpinned('--no-pin');
  if (os.availableParallelism() < 2) return unpinned('fewer than 2 CPUs');
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
  } catch {
    return unpinned('taskset (util-linux) is not installed');
  }
  try {
    execFileSync('taskset', ['-a', '-p', '-c', LOAD_CPU, String(process.pid)], { stdio: 'ignore' });
  } catch (error) {
    return unpinned(`taskset could not pin the load generator (${(error as Error).message.split('\n')[0]})`);
  }
  return {
    serverPrefix: ['taskset', '-c', SERVER_CPU],
    note: `each server pinned to CPU ${SERVER_CPU} (taskset -c ${SERVER_CPU}), the load generator to CPU ${LOAD_CPU}`,
  };
}
