import { fire, type RequestSource } from './load.js';
import type { BenchOptions } from './options.js';
import { firePaced, SocketPool } from './paced-load.js';
import { collectGeneratorGarbage, measure, type Measurement } from './phase.js';
import { medianRound, offeredTo, summarize, type HalfPeakFigures, type PacedMeasurement, type PerServer, type WorkloadFigures } from './report.js';
import type { MachineProbe, ServerName } from './servers.js';
import { joinTurns } from './turns.js';
import type { Target, Workload } from './workloads.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Plan {
  readonly workload: Workload;
  readonly skipped: string | undefined;
  readonly requests: readonly (readonly [Target, RequestSource])[];
}

/** Which peak rounds a call runs: all of them on one set of processes, or one on fresh ones. */
export interface RoundSpan {
  readonly first: number;
  readonly count: number;
}

/**
 * Peak load: each workload on every server, round after round, closed loop at `connections`. Within a
 * round the servers take turns per workload, of about `turn` seconds each, and who goes first rotates every turn and
 * every round, so drift on a noisy machine hits them all alike.
 */
export async function runRounds(
  targets: readonly Target[],
  workloads: readonly Workload[],
  options: BenchOptions,
  apiKey: string,
  machine?: MachineProbe,
  span: RoundSpan = { first: 1, count: options.rounds },
): Promise<WorkloadFigures[]> {
  const plans = workloads.map((workload) => plan(workload, targets));
  const peak = (target: Target, source: RequestSource, duration: number, times?: number[]) => {
    collectGeneratorGarbage();
    const load = () => fire({ url: target.server.url, apiKey, connections: options.connections, duration, source, ...(times === undefined ? {} : { times }) });
    return measure(target.server, load, othersThan(target, targets), machine);
  };
  if (options.warmup > 0) {
    log(`warm-up: ${options.warmup} s per workload and server`);
    for (const { requests } of plans) for (const [target, source] of requests) await peak(target, source, options.warmup);
  }
  const runs = plans.map(() => new Map<ServerName, Measurement[]>());
  for (let round = span.first; round < span.first + span.count; round++) {
    for (const [i, { workload, requests }] of plans.entries()) {
      const turnsOf = new Map(requests.map(([target]) => [target, { times: [] as number[], taken: [] as Measurement[] }]));
      // The servers take turns of about --turn s, the first rotating too: the host's speed drifts over seconds
      // (BENCHMARKS.md, issue 42's seventh session), and in short turns each server meets the same stretches of it.
      const turns = Math.max(1, Math.round(options.duration / options.turn));
      for (let turn = 0; turn < turns; turn++) {
        for (const [target, source] of rotate(requests, round - 1 + turn)) {
          const { times, taken } = turnsOf.get(target)!;
          taken.push(await peak(target, source, options.duration / turns, times));
        }
      }
      for (const [target, { times, taken }] of turnsOf) {
        const result = joinTurns(taken, times);
        const name = target.server.name;
        runs[i]!.set(name, [...(runs[i]!.get(name) ?? []), result]);
        log(`round ${round} ${workload.name} ${name}: ${result.reqPerSec.toFixed(0)} req/s, p99 ${result.p99.toFixed(2)} ms, ` +
          `${result.cpuUsPerReq.toFixed(0)} µs CPU/req, waited ${result.cpuWaitPct.toFixed(0)}% for CPU (client ${result.clientWaitPct.toFixed(0)}%), loop max ${result.loop.maxMs.toFixed(1)} ms${machineStall(result)}${markCompacts(result)}, ${result.errors} errors, ${result.non2xx} non-2xx`);
      }
    }
  }
  return plans.map(({ workload, skipped }, i) => ({
    workload: workload.name,
    ...(skipped === undefined ? {} : { skipped }),
    servers: Object.fromEntries([...runs[i]!].map(([name, rounds]) => [name, summarize(rounds)])) as PerServer<ReturnType<typeof summarize>>,
  }));
}

/**
 * Latency without queueing: each workload offered to every server at one fixed rate, half the service's
 * own peak for that workload, open loop (see paced-load.ts). As at peak, round after round with the servers
 * taking turns, and each server's median round is reported: one hiccup of the shared machine (a run where
 * every server, yardsticks included, read 50 to 250 ms) should not decide the figure, and every round's
 * p99 is printed beside it.
 */
export async function runHalfPeak(
  targets: readonly Target[],
  workloads: readonly Workload[],
  peak: readonly WorkloadFigures[],
  options: BenchOptions,
  apiKey: string,
  machine?: MachineProbe,
): Promise<HalfPeakFigures[]> {
  const plans = workloads.map((workload, i) => {
    const servicePeak = peak[i]!.servers.service?.reqPerSec ?? NaN;
    const memoryPeak = peak[i]!.servers['service-memory']?.reqPerSec;
    const planned = plan(workload, targets);
    const skipped = planned.skipped ?? (Number.isFinite(servicePeak) ? undefined : 'no service peak');
    const half = (value: number) => Math.max(1, Math.round(value / 2));
    return { ...planned, skipped, rate: half(servicePeak), ...(memoryPeak === undefined ? {} : { memoryRate: half(memoryPeak) }) };
  });
  const runs = plans.map(() => new Map<ServerName, PacedMeasurement[]>());
  for (let round = 1; round <= options.rounds; round++) {
    for (const [i, { workload, skipped, requests, ...rates }] of plans.entries()) {
      if (skipped !== undefined) continue;
      for (const [target, source] of rotate(requests, i + round - 1)) {
        const { server } = target;
        const rate = offeredTo(server.name, rates);
        const sockets = new SocketPool(server.url, options.connections);
        const paced = (seconds: number) => firePaced({ apiKey, rate, seconds, sockets, source });
        let result: PacedMeasurement;
        try {
          // Before the warm-up, not between it and the measured run: a full GC leaves V8 a small young generation
          // that grows back over the next second, and collected just before the run it put every server's
          // half-peak p99 up by about 1 ms (get, median of 9 rounds: 2.7 to 4.0 ms against 1.9 to 2.1).
          collectGeneratorGarbage();
          // Unrecorded, as before the peak rounds: the switch from the peak's connections and request shapes to the
          // paced ones (new sockets, other headers) cost whoever ran first up to 200 ms of p99 in its first second.
          if (options.warmup > 0) await paced(options.warmup);
          result = await measure(server, () => paced(options.duration), othersThan(target, targets), machine);
        } finally {
          sockets.destroy();
        }
        runs[i]!.set(server.name, [...(runs[i]!.get(server.name) ?? []), result]);
        log(`half-peak round ${round} ${workload.name} ${server.name} at ${rate} req/s: p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms, ` +
          `loop max ${result.loop.maxMs.toFixed(1)} ms${machineStall(result)}${markCompacts(result)}, server CPU ${((result.reqPerSec * result.cpuUsPerReq) / 1e4).toFixed(0)}%, ` +
          `waited ${result.cpuWaitPct.toFixed(0)}% for CPU (client ${result.clientWaitPct.toFixed(0)}%, ` +
          `${result.lateMs.toFixed(0)} ms behind at worst), ${result.errors} errors, ${result.non2xx} non-2xx`);
      }
    }
  }
  return plans.map(({ workload, skipped, rate, memoryRate }, i) => ({
    workload: workload.name,
    ...(skipped === undefined ? {} : { skipped }),
    rate,
    ...(memoryRate === undefined ? {} : { memoryRate }),
    servers: Object.fromEntries([...runs[i]!].map(([name, rounds]) => [name, medianRound(rounds)])) as HalfPeakFigures['servers'],
  }));
}

const machineStall = (result: Measurement) =>
  result.machineLoop === null ? '' : ` (idle process on its CPU: ${result.machineLoop.maxMs.toFixed(1)} ms)`;

const markCompacts = ({ loop }: Measurement) =>
  loop.markCompacts === 0 ? '' : `, ${loop.markCompacts} mark-compact${loop.markCompacts === 1 ? '' : 's'} (longest pause ${loop.longestMarkCompactMs.toFixed(1)} ms)`;

const othersThan = (target: Target, targets: readonly Target[]) => targets.filter((t) => t !== target).map((t) => t.server);

const rotate = <T>(items: readonly T[], by: number): T[] => items.map((_, i) => items[(i + by) % items.length]!);

// A workload one server cannot serve (no Link rel="next") is skipped on all: no ratio without every figure.
function plan(workload: Workload, targets: readonly Target[]): Plan {
  const requests = targets.map((target) => [target, workload.requests(target)] as const);
  const missing = requests.find(([, source]) => source === undefined);
  if (missing !== undefined) return { workload, skipped: `the ${missing[0].server.name} server sends no Link rel="next"`, requests: [] };
  return { workload, skipped: undefined, requests: requests as readonly (readonly [Target, RequestSource])[] };
}
