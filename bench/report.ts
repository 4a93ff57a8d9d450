import type { Measurement } from './workloads.js';

export type ServerName = 'service' | 'yardstick';

/** A workload's figures on one server: medians over the rounds, errors summed. */
export interface Summary {
  readonly reqPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly cpuUsPerReq: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly rounds: readonly Measurement[];
}

export interface WorkloadFigures {
  readonly workload: string;
  /** Why it was not measured, when it was not. */
  readonly skipped?: string;
  readonly service?: Summary;
  readonly yardstick?: Summary;
}

export function summarize(rounds: readonly Measurement[]): Summary {
  const med = (pick: (m: Measurement) => number) => median(rounds.map(pick));
  const sum = (pick: (m: Measurement) => number) => rounds.reduce((total, m) => total + pick(m), 0);
  return {
    reqPerSec: med((m) => m.reqPerSec),
    p50: med((m) => m.p50),
    p99: med((m) => m.p99),
    cpuUsPerReq: med((m) => m.cpuUsPerReq),
    errors: sum((m) => m.errors),
    non2xx: sum((m) => m.non2xx),
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

/** The main table: one row per workload, service beside yardstick. */
export function throughputTable(figures: readonly WorkloadFigures[]): string {
  const header = ['Workload', 'Service req/s', 'Yardstick req/s', 'Ratio', 'Service p50 / p99 ms',
    'Yardstick p50 / p99 ms', 'Service CPU µs/req', 'Yardstick CPU µs/req', 'CPU ratio', 'Errors / non-2xx'];
  const rows = figures.map(({ workload, skipped, service: s, yardstick: y }) => {
    if (skipped !== undefined || s === undefined || y === undefined) return [workload, `skipped: ${skipped}`, ...header.slice(2).map(() => '')];
    return [workload, fixed(s.reqPerSec), fixed(y.reqPerSec), ratio(s.reqPerSec, y.reqPerSec),
      `${fixed(s.p50, 2)} / ${fixed(s.p99, 2)}`, `${fixed(y.p50, 2)} / ${fixed(y.p99, 2)}`,
      fixed(s.cpuUsPerReq), fixed(y.cpuUsPerReq), ratio(s.cpuUsPerReq, y.cpuUsPerReq),
      `${s.errors + y.errors} / ${s.non2xx + y.non2xx}`];
  });
  return table(header, rows);
}

/** Errors and non-2xx responses over every measured run of both servers. */
export function failures(figures: readonly WorkloadFigures[]): number {
  return figures.reduce((total, f) => total + [f.service, f.yardstick].reduce((n, s) => n + (s ? s.errors + s.non2xx : 0), 0), 0);
}
