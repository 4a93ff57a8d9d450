import { perRequest, type CommandCounts } from './mongo-commands.js';
import { fixed, median, offeredTo, ratio, table, type HalfPeakFigures, type PacedMeasurement, type PerServer, type WorkloadFigures } from './report.js';
import { TRACED, YARDSTICKS, type BenchServer, type ServerName } from './servers.js';
import type { Measurement } from './phase.js';

/** How each server is named in the tables. */
export const LABELS: Readonly<Record<ServerName, string>> = {
  service: 'service',
  baseline: 'baseline build',
  'service-memory': 'service on memory',
  'traced 100%': 'service, tracing 100%',
  'traced 1%': 'service, tracing 1%',
  'node:http': 'node:http',
  koa: 'plain Koa',
  'koa-features': 'Koa + features',
  fastify: 'Fastify',
  'koa-mongodb': 'Koa + mongodb',
};

const errorsOf = (runs: readonly ({ errors: number; non2xx: number } | undefined)[]) =>
  `${runs.reduce((n, r) => n + (r?.errors ?? 0), 0)} / ${runs.reduce((n, r) => n + (r?.non2xx ?? 0), 0)}`;

/**
 * The ratios at a glance, as issues 10 and 30 state their targets: `subject` (the service, or the service on memory
 * beside the service on MongoDB) against each of `yardsticks` in the run.
 */
export function ratioTable(figures: readonly WorkloadFigures[], subject: ServerName = 'service', yardsticks: readonly ServerName[] = YARDSTICKS): string {
  const present = yardsticks.filter((y) => figures.some((f) => f.servers[y] !== undefined));
  const header = ['Workload', `${LABELS[subject].replace(/^s/, 'S')} req/s`, ...present.map((y) => `req/s vs ${LABELS[y]}`), `${LABELS[subject].replace(/^s/, 'S')} CPU µs/req`,
    ...present.map((y) => `${LABELS[y]} CPU µs/req`), ...present.map((y) => `CPU vs ${LABELS[y]}`)];
  const rows = figures.map(({ workload, skipped, servers }) => {
    const s = servers[subject];
    if (skipped !== undefined || s === undefined) return [workload, `skipped: ${skipped}`, ...header.slice(2).map(() => '')];
    const y = (name: ServerName) => servers[name];
    return [workload, fixed(s.reqPerSec), ...present.map((n) => ratio(s.reqPerSec, y(n)?.reqPerSec ?? NaN)), fixed(s.cpuUsPerReq),
      ...present.map((n) => fixed(y(n)?.cpuUsPerReq ?? NaN)), ...present.map((n) => ratio(s.cpuUsPerReq, y(n)?.cpuUsPerReq ?? NaN))];
  });
  return table(header, rows);
}

/** Every server's figures at peak; the ratios are the service's figure divided by this server's. */
export function peakTable(figures: readonly WorkloadFigures[], names: readonly ServerName[]): string {
  // Server CPU % well under 100 means something else set the pace: the load generator, or other processes
  // holding the server's CPU (the wait %: its event loop was ready to run and could not), or the client's.
  const header = ['Workload', 'Server', 'req/s', 'p50 / p99 ms', 'CPU µs/req', 'Server CPU %', 'Server / client waited for CPU %',
    'Service req/s ÷ this', 'Service CPU ÷ this', 'Loop max ms', 'Errors / non-2xx'];
  const rows = figures.flatMap(({ workload, skipped, servers }) => {
    if (skipped !== undefined) return [[workload, '', `skipped: ${skipped}`, ...header.slice(3).map(() => '')]];
    const s = servers.service;
    return names.map((name) => {
      const f = servers[name];
      if (f === undefined) return [workload, LABELS[name], '-', ...header.slice(3).map(() => '')];
      return [workload, LABELS[name], fixed(f.reqPerSec), `${fixed(f.p50, 2)} / ${fixed(f.p99, 2)}`, fixed(f.cpuUsPerReq), fixed(f.reqPerSec * f.cpuUsPerReq / 1e4), `${fixed(f.cpuWaitPct)} / ${fixed(f.clientWaitPct)}`,
        s === undefined ? '' : ratio(s.reqPerSec, f.reqPerSec), s === undefined ? '' : ratio(s.cpuUsPerReq, f.cpuUsPerReq),
        fixed(f.loopMaxMs, 1), errorsOf([f])];
    });
  });
  return table(header, rows);
}

/**
 * Latency at the fixed offered rate (half the service's peak): each server's median round by p99, every round's
 * p99, and the longest event-loop stall in any round.
 */
export function halfPeakTable(figures: readonly HalfPeakFigures[], names: readonly ServerName[]): string {
  // The generator's lateness and wait tell whether the latencies are the server's or the machine's.
  const header = ['Workload', 'Offered req/s', 'Server', 'Answered req/s', 'p50 / p99 / max ms', 'p99 of each round ms', 'Server CPU %',
    'Loop max (any round) / p99 ms', 'Server / client waited for CPU %', 'Generator late max ms', 'Errors / non-2xx'];
  const rows = figures.flatMap(({ workload, skipped, rate, memoryRate, servers }) => {
    if (skipped !== undefined) return [[workload, '', `skipped: ${skipped}`, ...header.slice(3).map(() => '')]];
    return names.map((name) => {
      const m = servers[name];
      const offered = fixed(offeredTo(name, { rate, memoryRate }));
      if (m === undefined) return [workload, offered, LABELS[name], '-', ...header.slice(4).map(() => '')];
      return [workload, offered, LABELS[name], fixed(m.reqPerSec), `${fixed(m.p50, 2)} / ${fixed(m.p99, 2)} / ${fixed(m.max, 2)}`,
        m.rounds.map(roundP99).join(', '), fixed(m.reqPerSec * m.cpuUsPerReq / 1e4),
        `${fixed(m.loopMaxMs, 1)} / ${fixed(m.loop.p99Ms, 1)}`, `${fixed(m.cpuWaitPct)} / ${fixed(m.clientWaitPct)}`, fixed(m.lateMs), errorsOf(m.rounds)];
    });
  });
  return table(header, rows);
}

const withMarkCompact = (rounds: readonly PacedMeasurement[]) =>
  rounds.length === 0 ? '-' : `${rounds.filter((round) => round.loop.markCompacts > 0).length} of ${rounds.length}`;

/** A half-peak round's p99, marked (MC) when the server ran a mark-compact (a major GC) during it. */
const roundP99 = (round: PacedMeasurement) => `${fixed(round.p99, 2)}${round.loop.markCompacts > 0 ? ' (MC)' : ''}`;

/** Per server: the longest event-loop stall over every peak run and every half-peak run. */
export function loopTable(peak: readonly WorkloadFigures[], halfPeak: readonly HalfPeakFigures[], names: readonly ServerName[]): string {
  const worst = (values: readonly (number | undefined)[]) => Math.max(...values.filter((v): v is number => v !== undefined));
  const rows = names.map((name) => [LABELS[name],
    fixed(worst(peak.map((f) => f.servers[name]?.loopMaxMs)), 1),
    fixed(worst(peak.map((f) => f.servers[name]?.machineLoopMaxMs)), 1),
    fixed(worst(halfPeak.map((f) => f.servers[name]?.loopMaxMs)), 1),
    fixed(worst(halfPeak.map((f) => f.servers[name]?.machineLoopMaxMs)), 1),
    fixed(worst(halfPeak.map((f) => f.servers[name]?.p99)), 2),
    withMarkCompact(halfPeak.flatMap((f) => f.servers[name]?.rounds ?? []))]);
  return table(['Server', 'Longest event-loop stall, peak runs (ms)', 'Idle process on the same CPU, same runs (ms)',
    'Longest stall, half-peak runs (ms)', 'Idle process, same runs (ms)', 'Highest half-peak p99 of any workload (median round, ms)',
    'Half-peak rounds with a mark-compact'], rows);
}

/** Start-up of each server in this run, and the service's extra cold starts. */
export function startupTable(servers: PerServer<BenchServer>, names: readonly ServerName[], extra: readonly number[]): string {
  const rows = names.map((name) => [LABELS[name], fixed(servers[name]?.listeningMs ?? NaN), fixed(servers[name]?.readyMs ?? NaN)]);
  const sorted = [...extra].sort((a, b) => a - b);
  const more = sorted.length === 0 ? '' :
    `\n\nService, ${sorted.length} more cold starts to /readyz 200: median ${fixed(sorted[sorted.length >> 1]!)} ms, ` +
    `min ${fixed(sorted[0]!)} ms, max ${fixed(sorted.at(-1)!)} ms.`;
  return table(['Server', 'Start-up to listening line (ms)', 'Start-up to ready (ms; /readyz 200 for the service)'], rows) + more;
}

/**
 * MongoDB commands per request at peak: the service's (and a baseline build's) from its /metrics, the MongoDB yardstick's from its own
 * count (driver command monitoring); `count` (the service's pet gauge, read by each /metrics scrape) left out.
 */
export function mongoTable(figures: readonly WorkloadFigures[], names: readonly ServerName[]): string {
  const counted = names.filter((name) => figures.some((f) => f.servers[name]?.mongoCommands !== undefined));
  const rows = figures.map(({ workload, skipped, servers }) => [workload, ...counted.flatMap((name) => {
    const figure = servers[name];
    if (skipped !== undefined || figure === undefined) return [`skipped: ${skipped}`, ''];
    return [perRequest(withoutCount(figure.mongoCommands ?? null), figure.requests), fixed(figure.mongoServerCpuUsPerReq)];
  })]);
  // The MongoDB server's CPU per request: what each server's commands cost the one MongoDB server they share.
  return table(['Workload', ...counted.flatMap((name) => [`${LABELS[name]}: MongoDB commands per request (by command)`, `${LABELS[name]}: MongoDB server CPU µs/req`])], rows);
}

function withoutCount(counts: CommandCounts | null): CommandCounts | null {
  return counts === null ? null : Object.fromEntries(Object.entries(counts).filter(([command]) => command !== 'count'));
}

/**
 * What tracing costs (--tracing): each traced server against the service with tracing off, in the same rounds.
 * A round's servers take turns second by second (--turn), so its ratio is taken within the round and the median
 * of the rounds' ratios is the figure: the host's drift between rounds cancels out (BENCHMARKS.md, Tracing). Each
 * round's ratio follows in brackets.
 */
export function tracingTable(figures: readonly WorkloadFigures[]): string {
  const header = ['Workload', 'Tracing off req/s', 'CPU µs/req', ...TRACED.flatMap((n) => [`${LABELS[n]}: req/s ÷ off, median of rounds (each round)`, 'CPU µs/req (+ over off)'])];
  const rows = figures.map(({ workload, skipped, servers }) => {
    const off = servers.service;
    if (skipped !== undefined || off === undefined) return [workload, `skipped: ${skipped}`, ...header.slice(2).map(() => '')];
    return [workload, fixed(off.reqPerSec), fixed(off.cpuUsPerReq), ...TRACED.flatMap((name) => {
      const on = servers[name];
      if (on === undefined) return ['-', '-'];
      const extra = on.cpuUsPerReq - off.cpuUsPerReq;
      const rounds = roundRatios(on.rounds, off.rounds);
      return [`${fixed(median(rounds), 2)}x (${rounds.map((r) => fixed(r, 2)).join(' ')})`, `${fixed(on.cpuUsPerReq)} (${extra >= 0 ? '+' : ''}${fixed(extra)})`];
    })];
  });
  return table(header, rows);
}

/** req/s of `on` over `off`, round by round (both measured once in every round, in round order). */
export function roundRatios(on: readonly Measurement[], off: readonly Measurement[]): number[] {
  return on.map((measurement, i) => measurement.reqPerSec / (off[i]?.reqPerSec ?? NaN));
}
