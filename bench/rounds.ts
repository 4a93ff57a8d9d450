import type { Request } from 'autocannon';
import type { BenchOptions } from './options.js';
import { summarize, type ServerName, type WorkloadFigures } from './report.js';
import { measure, type Measurement, type Target, type Workload } from './workloads.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Measures each workload on both servers, round after round; within a round the servers take turns per
 * workload and swap who goes first every round, so drift on a noisy machine hits both alike.
 */
export async function runRounds(
  targets: Readonly<Record<ServerName, Target>>,
  workloads: readonly Workload[],
  options: BenchOptions,
  apiKey: string,
): Promise<WorkloadFigures[]> {
  const settings = { apiKey, connections: options.connections };
  const plans = workloads.map((workload) => plan(workload, targets));
  if (options.warmup > 0) {
    log(`warm-up: ${options.warmup} s per workload and server`);
    for (const { requests } of plans) {
      for (const [name, request] of requests) await measure(targets[name], request, { ...settings, duration: options.warmup });
    }
  }
  const runs = plans.map(() => ({ service: [] as Measurement[], yardstick: [] as Measurement[] }));
  for (let round = 1; round <= options.rounds; round++) {
    for (const [i, { workload, requests }] of plans.entries()) {
      for (const [name, request] of round % 2 === 1 ? requests : [...requests].reverse()) {
        const result = await measure(targets[name], request, { ...settings, duration: options.duration });
        runs[i]![name].push(result);
        log(`round ${round} ${workload.name} ${name}: ${result.reqPerSec.toFixed(0)} req/s, p99 ${result.p99.toFixed(2)} ms, ` +
          `${result.cpuUsPerReq.toFixed(0)} µs CPU/req, ${result.errors} errors, ${result.non2xx} non-2xx`);
      }
    }
  }
  return plans.map(({ workload, skipped }, i) =>
    skipped !== undefined
      ? { workload: workload.name, skipped }
      : { workload: workload.name, service: summarize(runs[i]!.service), yardstick: summarize(runs[i]!.yardstick) },
  );
}

// A workload one server cannot serve (the service before pagination) is skipped on both: no ratio without a pair.
function plan(workload: Workload, targets: Readonly<Record<ServerName, Target>>) {
  const service = workload.request(targets.service);
  const yardstick = workload.request(targets.yardstick);
  if (service === undefined || yardstick === undefined) {
    const who = service === undefined ? 'service' : 'yardstick';
    return { workload, skipped: `the ${who} sends no Link rel="next"`, requests: [] as [ServerName, Request][] };
  }
  return { workload, skipped: undefined, requests: [['service', service], ['yardstick', yardstick]] as [ServerName, Request][] };
}
