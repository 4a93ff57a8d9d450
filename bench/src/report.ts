import { addCommands, type CommandCounts } from './mongo-commands.js';
import type { Measurement } from './phase.js';
import { MEMORY_YARDSTICKS, type ServerName } from './servers.js';

/** A workload's figures on one server: medians over the rounds, the worst stall, errors and commands summed. */
export interface Summary {
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuUsPerReq: number;
  /** Median share of the wall time the server waited for its CPU (another process held it), %. */
  readonly cpuWaitPct: number;
  /** The same for the load generator, %. */
  readonly clientWaitPct: number;
  /** Longest event-loop stall in any round, ms. */
  readonly loopMaxMs: number;
  /** Longest stall of the idle process on the same CPU over the same rounds (the machine's), ms; NaN without it. */
  readonly machineLoopMaxMs: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly requests: number;
  /** MongoDB commands over all rounds (the service, the MongoDB yardstick); null when not exposed. */
  readonly mongoCommands?: CommandCounts | null;
  /** Median CPU of the MongoDB server per response, µs (NaN when not read). */
  readonly mongoServerCpuUsPerReq: number;
  readonly rounds: readonly Measurement[];
}

export type PerServer<T> = Partial<Record<ServerName, T>>;

export interface WorkloadFigures {
  readonly workload: string;
  /** Why it was not measured, when it was not. */
  readonly skipped?: string;
  readonly servers: PerServer<Summary>;
}

/** One half-peak run: a measurement, and how far behind its schedule the generator fell at worst. */
export type PacedMeasurement = Measurement & { readonly lateMs: number };

/** A server's half-peak figures: its median round by p99 (every figure from that one run), and the rounds. */
export type HalfPeakSummary = PacedMeasurement & {
  /** Longest event-loop stall in any round, ms. */
  readonly loopMaxMs: number;
  /** Longest stall of the idle process on the same CPU over the same rounds, ms; NaN without it. */
  readonly machineLoopMaxMs: number;
  readonly rounds: readonly PacedMeasurement[];
};

/** A workload at a fixed offered rate, half the service's own peak, on every server. */
export interface HalfPeakFigures {
  readonly workload: string;
  readonly skipped?: string;
  /** Offered req/s: half the service's peak. */
  readonly rate: number;
  /** Offered to the service on memory and the in-memory yardsticks when the service ran on MongoDB: half the service on memory's peak. */
  readonly memoryRate?: number;
  readonly servers: PerServer<HalfPeakSummary>;
}

const MEMORY_GROUP: readonly ServerName[] = ['service-memory', ...MEMORY_YARDSTICKS];

/** What a server is offered at half peak: its own group's half (the memory group's when the service on memory ran). */
export function offeredTo(name: ServerName, { rate, memoryRate }: { rate: number; memoryRate?: number | undefined }): number {
  return memoryRate !== undefined && MEMORY_GROUP.includes(name) ? memoryRate : rate;
}

/** The round whose p99 is the median (the higher of the two middle ones for an even count). */
export function medianRound(rounds: readonly PacedMeasurement[]): HalfPeakSummary {
  const byP99 = [...rounds].sort((a, b) => a.p99 - b.p99);
  return { ...byP99[byP99.length >> 1]!, loopMaxMs: Math.max(...rounds.map((m) => m.loop.maxMs)), machineLoopMaxMs: machineLoopMax(rounds), rounds };
}

function machineLoopMax(rounds: readonly Measurement[]): number {
  return rounds.some((m) => m.machineLoop === null) ? NaN : Math.max(...rounds.map((m) => m.machineLoop!.maxMs));
}

export function summarize(rounds: readonly Measurement[]): Summary {
  const med = (pick: (m: Measurement) => number) => median(rounds.map(pick));
  const sum = (pick: (m: Measurement) => number) => rounds.reduce((total, m) => total + pick(m), 0);
  const commands = rounds.every((m) => m.mongoCommands === undefined)
    ? {}
    : { mongoCommands: addCommands(rounds.map((m) => m.mongoCommands ?? null)) };
  return {
    reqPerSec: med((m) => m.reqPerSec),
    p50: med((m) => m.p50),
    p99: med((m) => m.p99),
    cpuUsPerReq: med((m) => m.cpuUsPerReq),
    mongoServerCpuUsPerReq: med((m) => m.mongoServerCpuUsPerReq ?? NaN),
    cpuWaitPct: med((m) => m.cpuWaitPct),
    clientWaitPct: med((m) => m.clientWaitPct),
    loopMaxMs: Math.max(...rounds.map((m) => m.loop.maxMs)),
    machineLoopMaxMs: machineLoopMax(rounds),
    errors: sum((m) => m.errors),
    non2xx: sum((m) => m.non2xx),
    requests: sum((m) => m.requests),
    ...commands,
    rounds,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
export const ratio = (a: number, b: number) => `${fixed(a / b, 2)}x`;
export const mib = (bytes: number) => `${fixed(bytes / 2 ** 20, 1)} MiB`;

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Errors and non-2xx responses over every measured run of every server. */
export function failures(runs: readonly { errors: number; non2xx: number }[]): number {
  return runs.reduce((total, run) => total + run.errors + run.non2xx, 0);
}
