import { preloadAll, targetsAt } from './fleet.js';
import type { BenchOptions } from './options.js';
import { failures, fixed, ratio, table, type PerServer } from './report.js';
import { runRounds } from './rounds.js';
import { settledRss } from './proc-stats.js';
import type { BenchServer, ServerName } from './servers.js';
import { LABELS } from './tables.js';
import type { RunReport } from './throughput-run.js';
import { WORKLOADS } from './workloads.js';

export const SCALE_BASE = 1000;

/** Reads at 1,000 pets, then at `total`: how latency holds as the store grows, and resident bytes per pet. */
export async function scaleRun(servers: PerServer<BenchServer>, total: number, options: BenchOptions, apiKey: string): Promise<RunReport> {
  const names = Object.keys(servers) as ServerName[];
  const reads = WORKLOADS.filter((w) => w.read);
  const rssAll = async () => Object.fromEntries(await Promise.all(names.map(async (n) => [n, await settledRss(servers[n]!)] as const))) as PerServer<number>;
  await preloadAll(servers, apiKey, 1, SCALE_BASE);
  const rssSmall = await rssAll();
  const small = await runRounds(await targetsAt(servers, apiKey, SCALE_BASE), reads, options, apiKey);
  const loadRate = await preloadAll(servers, apiKey, SCALE_BASE + 1, total);
  const rssLarge = await rssAll();
  const large = await runRounds(await targetsAt(servers, apiKey, total), reads, options, apiKey);
  const rssAfterReads = await rssAll();
  const perPet = Object.fromEntries(names.map((n) => [n, (rssLarge[n]! - rssSmall[n]!) / (total - SCALE_BASE)])) as PerServer<number>;
  const rows = small.flatMap((s, i) => names.map((name) => {
    const a = s.servers[name];
    const b = large[i]!.servers[name];
    if (a === undefined || b === undefined) return [s.workload, LABELS[name], `skipped: ${s.skipped ?? large[i]!.skipped}`, '', '', '', ''];
    return [s.workload, LABELS[name], fixed(a.p50, 2), fixed(b.p50, 2), ratio(b.p50, a.p50), fixed(a.reqPerSec), fixed(b.reqPerSec)];
  }));
  const [first, ...others] = names;
  const markdown = [
    table(['Workload', 'Server', `p50 ms at ${SCALE_BASE}`, `p50 ms at ${total}`, 'p50 ratio', `req/s at ${SCALE_BASE}`, `req/s at ${total}`], rows),
    '',
    table(['', ...names.map((n) => LABELS[n]), ...others.map((n) => `${LABELS[first!]} ÷ ${LABELS[n]}`)], [
      [`RSS bytes per stored pet (settled RSS delta / ${total - SCALE_BASE})`, ...names.map((n) => fixed(perPet[n]!)), ...others.map((n) => ratio(perPet[first!]!, perPet[n]!))],
      [`Settled RSS growth over the reads at ${total} pets (MiB)`, ...names.map((n) => fixed((rssAfterReads[n]! - rssLarge[n]!) / 2 ** 20, 1)), ...others.map(() => '')],
      [`Preload to ${total} pets (pets/s)`, ...names.map((n) => fixed(loadRate[n]!)), ...others.map((n) => ratio(loadRate[first!]!, loadRate[n]!))],
    ]),
  ].join('\n');
  const runs = [...small, ...large].flatMap((f) => Object.values(f.servers));
  return { markdown, failures: failures(runs), figures: { small, large, rssSmall, rssLarge, rssAfterReads, bytesPerPet: perPet, loadRate } };
}
