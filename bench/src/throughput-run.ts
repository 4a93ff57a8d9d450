import { preloadAll, targetsAt, type Fleet } from './fleet.js';
import type { BenchOptions } from './options.js';
import { failures, fixed, mib, summarize, table, type PerServer, type WorkloadFigures } from './report.js';
import { runHalfPeak, runRounds, type RoundSpan } from './rounds.js';
import { memory } from './proc-stats.js';
import { MEMORY_YARDSTICKS, MONGO_YARDSTICK, type BenchServer, type MachineProbe, type ServerName } from './servers.js';
import { halfPeakTable, LABELS, loopTable, mongoTable, peakTable, ratioTable, startupTable, tracingTable } from './tables.js';
import { WORKLOADS, type Target } from './workloads.js';

export interface RunReport {
  readonly markdown: string;
  readonly failures: number;
  readonly figures: object;
}

/**
 * The normal run: every workload at peak on every server, then at half the service's peak (on the last round's
 * processes), then the tables. Start-up and preload figures are the first processes'; memory the last ones'.
 */
export async function throughputRun(
  fleet: Fleet,
  options: BenchOptions,
  apiKey: string,
  coldStartsMs: readonly number[],
  machine?: MachineProbe,
): Promise<RunReport> {
  const workloads = WORKLOADS.filter((workload) => options.workloads.includes(workload.key));
  const spans: RoundSpan[] = options.freshProcesses
    ? Array.from({ length: options.rounds }, (_, i) => ({ first: i + 1, count: 1 }))
    : [{ first: 1, count: options.rounds }];
  const sets: PreloadedSet[] = [];
  const peaks: WorkloadFigures[][] = [];
  for (const span of spans) {
    const set = await startPreloaded(fleet, apiKey, options.pets);
    sets.push(set);
    peaks.push(await runRounds(set.targets, workloads, options, apiKey, machine, span));
  }
  const { servers: first, loadRate } = sets[0]!;
  const { servers, targets } = sets.at(-1)!;
  const names = Object.keys(first) as ServerName[];
  const peak = allRounds(peaks);
  const halfPeak = options.halfPeak ? await runHalfPeak(targets, workloads, peak, options, apiKey, machine) : [];
  const peakRss = Object.fromEntries(names.map((name) => [name, memory(servers[name]!.pid).peakRss])) as PerServer<number>;
  const markdown = [
    `### Peak: ${options.connections} connections, closed loop; medians of ${options.rounds} round(s) of ${options.duration} s${options.freshProcesses ? ', each on fresh processes' : ' on one set of processes'}`,
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
    startupTable(first, names, coldStartsMs),
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
  const startups = Object.fromEntries(names.map((n) => [n, { listeningMs: first[n]!.listeningMs, readyMs: first[n]!.readyMs }]));
  return { markdown, failures: failures(runs), figures: { workloads: peak, halfPeak, peakRss, startups, coldStartsMs, loadRate } };
}

interface PreloadedSet {
  readonly servers: PerServer<BenchServer>;
  /** Pets per second each server stored while preloading. */
  readonly loadRate: PerServer<number>;
  readonly targets: Target[];
}

/** New processes of every server, each preloaded with `pets` pets and walked for the workloads' targets. */
async function startPreloaded(fleet: Fleet, apiKey: string, pets: number): Promise<PreloadedSet> {
  const servers = await fleet.restart();
  const loadRate = await preloadAll(servers, apiKey, 1, pets);
  return { servers, loadRate, targets: await targetsAt(servers, apiKey, pets) };
}

/** Each workload's figures over the rounds of every set of processes, as if run on one. */
function allRounds(peaks: readonly (readonly WorkloadFigures[])[]): WorkloadFigures[] {
  return peaks[0]!.map((figures, i) => {
    const names = Object.keys(figures.servers) as ServerName[];
    const servers = Object.fromEntries(names.map((name) => [name, summarize(peaks.flatMap((p) => p[i]!.servers[name]?.rounds ?? []))]));
    return { ...figures, servers };
  });
}
