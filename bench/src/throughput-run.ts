import { preloadAll, targetsAt } from './fleet.js';
import type { BenchOptions } from './options.js';
import { failures, fixed, mib, table, type PerServer } from './report.js';
import { runHalfPeak, runRounds } from './rounds.js';
import { memory } from './proc-stats.js';
import { MEMORY_YARDSTICKS, MONGO_YARDSTICK, type BenchServer, type MachineProbe, type ServerName } from './servers.js';
import { halfPeakTable, LABELS, loopTable, mongoTable, peakTable, ratioTable, startupTable, tracingTable } from './tables.js';
import { WORKLOADS } from './workloads.js';

export interface RunReport {
  readonly markdown: string;
  readonly failures: number;
  readonly figures: object;
}

/** The normal run: every workload at peak on every server, then at half the service's peak, then the tables. */
export async function throughputRun(
  servers: PerServer<BenchServer>,
  options: BenchOptions,
  apiKey: string,
  coldStartsMs: readonly number[],
  machine?: MachineProbe,
): Promise<RunReport> {
  const names = Object.keys(servers) as ServerName[];
  const loadRate = await preloadAll(servers, apiKey, 1, options.pets);
  const targets = await targetsAt(servers, apiKey, options.pets);
  const workloads = WORKLOADS.filter((workload) => options.workloads.includes(workload.key));
  const peak = await runRounds(targets, workloads, options, apiKey, machine);
  const halfPeak = options.halfPeak ? await runHalfPeak(targets, workloads, peak, options, apiKey, machine) : [];
  const peakRss = Object.fromEntries(names.map((name) => [name, memory(servers[name]!.pid).peakRss])) as PerServer<number>;
  const markdown = [
    `### Peak: ${options.connections} connections, closed loop; medians of ${options.rounds} round(s) of ${options.duration} s`,
    ...(names.includes('service-memory')
      ? ['The MongoDB path: the service on MongoDB storage against plain Koa + the mongodb driver on the same MongoDB server', '',
        ratioTable(peak, 'service', [MONGO_YARDSTICK]), '',
        'The memory path, same run: the service on memory storage against the in-memory yardsticks', '',
        ratioTable(peak, 'service-memory', MEMORY_YARDSTICKS)]
      : [ratioTable(peak)]),
    '',
    peakTable(peak, names),
    '',
    ...(options.tracing ? ['### Tracing: the service with tracing on against tracing off, same rounds', tracingTable(peak), ''] : []),
    `### At half the service's peak (the service on memory's for the in-memory servers), offered open loop for ${options.duration} s; the median of ${options.rounds} round(s) by p99`,
    halfPeakTable(halfPeak, names),
    '',
    '(MC): the server ran a V8 mark-compact (major GC) during that round; held to one CPU, its marking thread takes that CPU from the event loop for 100 to 200 ms.',
    '',
    '### Event loop',
    loopTable(peak, halfPeak, names),
    '',
    '### Start-up',
    startupTable(servers, names, coldStartsMs),
    '',
    '### MongoDB round trips (peak runs)',
    // A memory run sends no command: its 0.00 per request would read like a measured MongoDB figure.
    options.storage === 'mongodb' ? mongoTable(peak, names) : 'n/a: the service ran on memory storage (`--storage mongodb` measures them)',
    '',
    '### Memory and preload',
    table(['', ...names.map((n) => LABELS[n])], [
      ['Peak RSS (VmHWM)', ...names.map((n) => mib(peakRss[n]!))],
      [`Preload of ${options.pets} pets (pets/s)`, ...names.map((n) => fixed(loadRate[n]!))],
    ]),
  ].join('\n');
  const runs = [...peak.flatMap((f) => Object.values(f.servers)), ...halfPeak.flatMap((f) => Object.values(f.servers).flatMap((s) => s.rounds))];
  const startups = Object.fromEntries(names.map((n) => [n, { listeningMs: servers[n]!.listeningMs, readyMs: servers[n]!.readyMs }]));
  return { markdown, failures: failures(runs), figures: { workloads: peak, halfPeak, peakRss, startups, coldStartsMs, loadRate } };
}
