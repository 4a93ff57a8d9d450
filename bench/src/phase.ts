import type { LoadResult } from './load.js';
import { commandsBetween, type CommandCounts } from './mongo-commands.js';
import type { LoopDelay } from './server-probe.js';
import { cpuSeconds, runQueueWaitNs } from './proc-stats.js';
import type { BenchServer, MachineProbe } from './servers.js';

/** One timed run of a workload on one server, with what the server reported around it. */
export interface Measurement extends LoadResult {
  /** The server process measured: each peak round starts its own unless --same-processes. */
  readonly pid: number;
  /** Server CPU (user + system) per response, microseconds. */
  readonly cpuUsPerReq: number;
  /** Share of the run's wall time the server's event loop was ready to run but another process held its CPU, %. */
  readonly cpuWaitPct: number;
  /** The same for the load generator (this process's main thread, where the peak and paced clients run), %. */
  readonly clientWaitPct: number;
  /** The server's event-loop delay over the run alone. */
  readonly loop: LoopDelay;
  /** Over the same run, an idle process's on the same CPU: the machine's own stalls (null without the probe). */
  readonly machineLoop: LoopDelay | null;
  /** MongoDB commands the server sent during the run; null when the service's /metrics does not count them; absent without MongoDB. */
  readonly mongoCommands?: CommandCounts | null;
  /** CPU (user + system, every thread) of the MongoDB server it used, per response, µs; absent without one the bench started. */
  readonly mongoServerCpuUsPerReq?: number;
}

/**
 * Runs `load` against `server` and reads around it, outside the timed window: the MongoDB commands it sent
 * (the service's /metrics counter, the MongoDB yardstick's own count), the event-loop monitor (reset at the start), the server's CPU time, and how
 * long server and load generator waited for a CPU. The `idle` servers are paused (SIGSTOP) while it runs.
 */
export async function measure<R extends LoadResult>(
  server: BenchServer,
  load: () => Promise<R>,
  idle: readonly BenchServer[] = [],
  machine?: MachineProbe,
): Promise<R & Measurement> {
  const mongoBefore = await server.mongoCommands?.();
  await server.loopDelay();
  await machine?.loopDelay();
  const cpuBefore = cpuSeconds(server.pid);
  const mongoCpuBefore = server.mongoServerPid === undefined ? NaN : cpuSeconds(server.mongoServerPid);
  const waitBefore = runQueueWaitNs(server.pid);
  const clientWaitBefore = runQueueWaitNs(process.pid);
  // The other servers share CPU 0 and are stopped for the run: an idle V8 still collects garbage on its own
  // (its memory reducer runs a full GC seconds after a busy run), and that took up to 11% of the CPU from the
  // server being measured, with event-loop stalls of 40 to 50 ms in its half-peak runs.
  for (const other of idle) process.kill(other.pid, 'SIGSTOP');
  let result: R;
  try {
    result = await load();
  } finally {
    for (const other of idle) process.kill(other.pid, 'SIGCONT');
  }
  const cpu = cpuSeconds(server.pid) - cpuBefore;
  const waitPct = (nsBefore: number, pid: number) => ((runQueueWaitNs(pid) - nsBefore) / 1e9 / result.seconds) * 100;
  const cpuWaitPct = waitPct(waitBefore, server.pid);
  const clientWaitPct = waitPct(clientWaitBefore, process.pid);
  const loop = await server.loopDelay();
  const machineLoop = (await machine?.loopDelay()) ?? null;
  const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
  const cpuUsPerReq = perRequest(cpu);
  const mongoServer = server.mongoServerPid === undefined ? {} : { mongoServerCpuUsPerReq: perRequest(cpuSeconds(server.mongoServerPid) - mongoCpuBefore) };
  const figures = { ...result, pid: server.pid, cpuUsPerReq, cpuWaitPct, clientWaitPct, loop, machineLoop, ...mongoServer };
  if (server.mongoCommands === undefined) return figures;
  return { ...figures, mongoCommands: commandsBetween(mongoBefore ?? null, await server.mongoCommands()) };
}

/**
 * A full GC of the load generator (this process) when node runs with --expose-gc (npm run bench does);
 * otherwise nothing. Called before a run, so that the garbage of the run before (the clients keep every
 * latency) is not collected by a major GC in the middle of it: its marking threads share the generator's core.
 */
export function collectGeneratorGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
