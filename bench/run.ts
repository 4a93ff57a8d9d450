import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { walkStore } from './deep-page.js';
import { preload } from './load.js';
import { parseOptions, USAGE, type BenchOptions } from './options.js';
import { freshDbName, startMongoServer } from '../test/support/mongo-server.js';
import { failures, fixed, mib, ratio, table, throughputTable, type ServerName } from './report.js';
import { runRounds } from './rounds.js';
import { memory, settledRss, startService, startYardstick, type BenchServer } from './servers.js';
import { WORKLOADS, type Target } from './workloads.js';

type Pair<T> = Record<ServerName, T>;
const NAMES: readonly ServerName[] = ['service', 'yardstick'];
const SCALE_BASE = 1000;
const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(options: BenchOptions, mongoUrl: string | undefined): Promise<void> {
  const apiKey = randomBytes(24).toString('base64url');
  const servers = await startBoth(options, apiKey, mongoUrl);
  try {
    const report = options.scale === undefined
      ? await throughputRun(servers, options, apiKey)
      : await scaleRun(servers, options.scale, options, apiKey);
    const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` };
    process.stdout.write(`${report.markdown}\n`);
    if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ machine, options, ...report.figures }, null, 2)}\n`);
    if (report.failures > 0) {
      log(`FAILED: ${report.failures} errors or non-2xx responses`);
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(NAMES.map((name) => servers[name].stop()));
  }
}

async function startBoth(options: BenchOptions, apiKey: string, mongoUrl: string | undefined): Promise<Pair<BenchServer>> {
  const storage =
    mongoUrl === undefined
      ? { STORAGE: 'memory' }
      : { STORAGE: 'mongodb', MONGODB_URL: mongoUrl, MONGODB_DB: freshDbName('bench') };
  // Production features stay on: request logs at info, metrics, and rate limiting with a quota the load cannot spend.
  const env = { ...storage, LOG_LEVEL: 'info', LOG_FORMAT: 'json', METRICS: 'on', RATE_LIMIT_PER_MINUTE: '10000000' };
  const service = await startService(apiKey, env, options.cpuProf);
  try {
    return { service, yardstick: await startYardstick(apiKey) };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/** Preloads both stores from `first` up to `total` pets; returns the load rate in pets per second. */
async function load(servers: Pair<BenchServer>, apiKey: string, first: number, total: number): Promise<Pair<number>> {
  const rates = {} as Pair<number>;
  for (const name of NAMES) {
    const result = await preload(servers[name].url, apiKey, total - first + 1, first);
    rates[name] = result.requests / result.seconds;
    log(`preloaded ${name}: ${total} pets stored (${fixed(rates[name])} pets/s over HTTP)`);
  }
  return rates;
}

/** Walks each store once: it must hold exactly `stored` pets, and the workloads pick ids from it. */
async function targetsAt(servers: Pair<BenchServer>, apiKey: string, stored: number): Promise<Pair<Target>> {
  const target = async (server: BenchServer): Promise<Target> => {
    const { ids, deepPage } = await walkStore(server.url, apiKey);
    if (ids.length !== stored) throw new Error(`${server.name} lists ${ids.length} pets, expected ${stored}`);
    return { server, ids, deepPage };
  };
  return { service: await target(servers.service), yardstick: await target(servers.yardstick) };
}

async function throughputRun(servers: Pair<BenchServer>, options: BenchOptions, apiKey: string) {
  const loadRate = await load(servers, apiKey, 1, options.pets);
  const figures = await runRounds(await targetsAt(servers, apiKey, options.pets), WORKLOADS, options, apiKey);
  const peakRss = { service: memory(servers.service.pid).peakRss, yardstick: memory(servers.yardstick.pid).peakRss };
  const startupMs = { service: servers.service.startupMs, yardstick: servers.yardstick.startupMs };
  const markdown = [
    throughputTable(figures),
    '',
    table(['', 'Service', 'Yardstick', 'Ratio'], [
      ['Peak RSS (VmHWM)', mib(peakRss.service), mib(peakRss.yardstick), ratio(peakRss.service, peakRss.yardstick)],
      ['Start-up to listening line (ms)', fixed(startupMs.service), fixed(startupMs.yardstick), ratio(startupMs.service, startupMs.yardstick)],
      [`Preload of ${options.pets} pets (pets/s)`, fixed(loadRate.service), fixed(loadRate.yardstick), ratio(loadRate.service, loadRate.yardstick)],
    ]),
  ].join('\n');
  return { markdown, failures: failures(figures), figures: { workloads: figures, peakRss, startupMs, loadRate } };
}

async function scaleRun(servers: Pair<BenchServer>, total: number, options: BenchOptions, apiKey: string) {
  const reads = WORKLOADS.filter((w) => w.read);
  await load(servers, apiKey, 1, SCALE_BASE);
  const rssSmall = { service: await settledRss(servers.service.pid), yardstick: await settledRss(servers.yardstick.pid) };
  const small = await runRounds(await targetsAt(servers, apiKey, SCALE_BASE), reads, options, apiKey);
  const loadRate = await load(servers, apiKey, SCALE_BASE + 1, total);
  const rssLarge = { service: await settledRss(servers.service.pid), yardstick: await settledRss(servers.yardstick.pid) };
  const large = await runRounds(await targetsAt(servers, apiKey, total), reads, options, apiKey);
  const perPet = (name: ServerName) => (rssLarge[name] - rssSmall[name]) / (total - SCALE_BASE);
  const rows = small.flatMap((s, i) => NAMES.map((name) => {
    const a = s[name];
    const b = large[i]![name];
    if (a === undefined || b === undefined) return [s.workload, name, `skipped: ${s.skipped ?? large[i]!.skipped}`, '', '', '', ''];
    return [s.workload, name, fixed(a.p50, 2), fixed(b.p50, 2), ratio(b.p50, a.p50), fixed(a.reqPerSec), fixed(b.reqPerSec)];
  }));
  const markdown = [
    table(['Workload', 'Server', `p50 ms at ${SCALE_BASE}`, `p50 ms at ${total}`, 'p50 ratio', `req/s at ${SCALE_BASE}`, `req/s at ${total}`], rows),
    '',
    table(['', 'Service', 'Yardstick', 'Ratio'], [
      [`RSS bytes per stored pet (settled RSS delta / ${total - SCALE_BASE})`, fixed(perPet('service')), fixed(perPet('yardstick')), ratio(perPet('service'), perPet('yardstick'))],
      [`Preload to ${total} pets (pets/s)`, fixed(loadRate.service), fixed(loadRate.yardstick), ratio(loadRate.service, loadRate.yardstick)],
    ]),
  ].join('\n');
  const figures = { small, large, rssSmall, rssLarge, bytesPerPet: { service: perPet('service'), yardstick: perPet('yardstick') }, loadRate };
  return { markdown, failures: failures([...small, ...large]), figures };
}

try {
  const options = parseOptions(process.argv.slice(2));
  // The same server choice as the tests: MONGODB_URL, else mongodb-memory-server, else the offline jongodb.
  const mongo = options.storage === 'mongodb' ? await startMongoServer() : undefined;
  try {
    await main(options, mongo?.url);
  } finally {
    await mongo?.stop();
  }
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) log(USAGE);
  process.exitCode = 2;
}
