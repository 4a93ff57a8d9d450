import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { pinCores, type Pinning } from './cpu-pinning.js';
import { coldStarts, Fleet } from './fleet.js';
import { parseOptions, USAGE, type BenchOptions } from './options.js';
import { freshDbName, startMongoServer } from './mongo-server.js';
import { scaleRun } from './scale-run.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';
import { MEMORY_YARDSTICKS, startMachineProbe, TRACED, unsupportedNode, type ServerName, type StartSettings } from './servers.js';
import { throughputRun } from './throughput-run.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

type Mongo = { readonly url: string; readonly pid?: number | undefined } | undefined;

async function main(options: BenchOptions, mongo: Mongo): Promise<void> {
  const apiKey = randomBytes(24).toString('base64url');
  // After the MongoDB server started (it keeps every CPU), before any Node server does.
  const pinning = pinCores(options.pin);
  log(pinning.note);
  // After the pinning, so that it shares the load generator's CPU and takes none from the servers'.
  const receiver = options.tracing ? await startOtlpReceiver() : undefined;
  try {
    await measure(options, mongo, apiKey, pinning, receiver);
  } finally {
    await receiver?.stop();
  }
}

async function measure(options: BenchOptions, mongo: Mongo, apiKey: string, pinning: Pinning, receiver: OtlpReceiver | undefined): Promise<void> {
  const mongoUrl = mongo?.url;
  const storage = mongoUrl === undefined
    ? { STORAGE: 'memory' }
    : { STORAGE: 'mongodb', MONGODB_URL: mongoUrl, MONGODB_DB: freshDbName('bench') };
  // Production features stay on: request logs at info, metrics, and rate limiting with a quota the load cannot spend.
  const serviceEnv = { ...storage, API_KEYS: apiKey, LOG_LEVEL: 'info', LOG_FORMAT: 'json', METRICS: 'on', RATE_LIMIT_PER_MINUTE: '10000000',
    // Nothing is in flight when the bench stops the service: the load balancer's grace would only add 5 s per stop.
    SHUTDOWN_GRACE_MS: '0', ...options.serviceEnv };
  if (Object.keys(options.serviceEnv).length > 0) log(`EXPERIMENT: service settings overridden: ${JSON.stringify(options.serviceEnv)}`);
  if (Object.keys(options.baselineEnv).length > 0) {
    if (options.baseline === undefined) throw new Error('--baseline-env needs --baseline (say --baseline dist: this build with one setting changed)');
    log(`EXPERIMENT: the baseline build's settings differ: ${JSON.stringify(options.baselineEnv)}`);
  }
  const settings: StartSettings = {
    prefix: pinning.serverPrefix,
    serviceEnv,
    cpuProfDir: options.cpuProf,
    baselineEntry: options.baseline,
    // On MongoDB the baseline build keeps its pets in a database of its own, as each server keeps its own store.
    baselineEnv: mongoUrl === undefined ? options.baselineEnv : { MONGODB_DB: freshDbName('bench-baseline'), ...options.baselineEnv },
    // The MongoDB yardstick on the same server as the service, in a database of its own.
    yardstickMongo: mongoUrl === undefined ? undefined : { url: mongoUrl, db: freshDbName('bench-yardstick') },
    mongoServerPid: mongo?.pid,
    otlpEndpoint: receiver?.url,
  };
  // The scale run preloads up to millions of pets: the service against the bare yardstick only.
  const baseline: ServerName[] = options.baseline === undefined ? [] : ['baseline'];
  const traced: ServerName[] = options.tracing ? [...TRACED] : [];
  // On MongoDB, the service on memory too, against the in-memory yardsticks: both tables from one run.
  const memoryToo: ServerName[] = mongoUrl !== undefined && options.yardsticks.some((y) => (MEMORY_YARDSTICKS as readonly string[]).includes(y)) ? ['service-memory'] : [];
  const names: readonly ServerName[] =
    options.scale === undefined ? ['service', ...baseline, ...traced, ...memoryToo, ...options.yardsticks] : ['service', 'node:http'];
  const coldStartsMs = options.scale === undefined ? await coldStarts(options.startups, settings) : [];
  const fleet = new Fleet(names, settings);
  // Stalls of an idle process on the servers' CPU, read beside every run: the machine's share of theirs.
  const machineProbe = options.scale === undefined ? await startMachineProbe(settings.prefix) : undefined;
  try {
    const report = options.scale === undefined
      ? await throughputRun(fleet, options, apiKey, coldStartsMs, machineProbe)
      : await scaleRun(await fleet.restart(), options.scale, options, apiKey);
    const cpus = os.cpus();
    const machine = { cpus: cpus.length, cpuModel: cpus[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}`, loadAverage: os.loadavg(), pinning: pinning.note };
    process.stdout.write(`${report.markdown}\n\nMachine: ${machine.cpus} CPUs, ${machine.node}, ${machine.platform}, ${pinning.note}; ` +
      `load average at the end ${machine.loadAverage.map((l) => l.toFixed(2)).join(' ')}\n`);
    if (receiver !== undefined) {
      const { requests, bytes } = await receiver.received();
      process.stdout.write(`OTLP receiver: ${requests} exports, ${(bytes / 2 ** 20).toFixed(1)} MiB of spans received\n`);
    }
    if (options.json !== undefined) writeFileSync(options.json, `${JSON.stringify({ machine, options, ...report.figures }, null, 2)}\n`);
    if (report.failures > 0) {
      log(`FAILED: ${report.failures} errors or non-2xx responses`);
      process.exitCode = 1;
    }
  } finally {
    await machineProbe?.stop();
    await fleet.stop();
  }
}

try {
  const options = parseOptions(process.argv.slice(2));
  const refused = unsupportedNode(process.version);
  if (refused !== undefined) throw new Error(refused);
  log(`load average at the start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const mongo = options.storage === 'mongodb' ? await startMongoServer() : undefined;
  try {
    await main(options, mongo);
  } finally {
    await mongo?.stop();
  }
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) log(USAGE);
  process.exitCode = 2;
}
