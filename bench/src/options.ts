import { parseArgs } from 'node:util';
import { MEMORY_YARDSTICKS, MONGO_YARDSTICK, YARDSTICKS, type YardstickName } from './servers.js';
import { WORKLOAD_KEYS, defaultWorkloads } from './workloads.js';

export interface BenchOptions {
  readonly pets: number;
  readonly rounds: number;
  readonly connections: number;
  /** Seconds per workload per server per round, and per half-peak run. */
  readonly duration: number;
  /** Seconds of a turn: within a round each server's `duration` is taken in turns about this long, the servers alternating. */
  readonly turn: number;
  /** Seconds of unrecorded load per workload per server before the first round (each round, on fresh processes). */
  readonly warmup: number;
  /** Whether every peak round starts every server afresh (the default), or all rounds run on one set of processes. */
  readonly freshProcesses: boolean;
  readonly storage: 'memory' | 'mongodb';
  /** Store size for the scale run (reads at 1,000 pets, then at this many); undefined for the normal run. */
  readonly scale: number | undefined;
  /** Extra cold starts of the service, timed to its first /readyz 200 (0: only the one the run makes). */
  readonly startups: number;
  /** Whether to pin each server to CPU 0 and the load generator to CPU 1 (taskset). */
  readonly pin: boolean;
  readonly json: string | undefined;
  /** Directory for a V8 CPU profile of the service (node --cpu-prof), written when it stops. */
  readonly cpuProf: string | undefined;
  /** Yardsticks measured beside the service (every one the storage allows unless --servers narrows them). */
  readonly yardsticks: readonly YardstickName[];
  /** Short names of the workloads to run (all unless --workloads narrows them). */
  readonly workloads: readonly string[];
  /** Whether to run the half-peak latency runs after the peak rounds. */
  readonly halfPeak: boolean;
  /** Another build of the service (its main.js) run beside this one in every round, to measure a change. */
  readonly baseline: string | undefined;
  /** Settings that replace the service's production ones, for experiments (what one feature costs); never for a recorded run. */
  readonly serviceEnv: Readonly<Record<string, string>>;
  /** Settings of the baseline build only: with --baseline dist, what one feature costs, side by side. */
  readonly baselineEnv: Readonly<Record<string, string>>;
  /** Whether to run the service with tracing on beside it (100% and 1% sampled), exporting to a local receiver. */
  readonly tracing: boolean;
}

export const USAGE = `Usage: npm run bench -- [options]
  --pets N          pets preloaded into each server before measuring (default 1000)
  --rounds N        interleaved rounds at peak load (default 3), each on fresh processes of every server: two
                    processes of one build differ by up to 30% at peak here, and stay apart for their lifetime
  --same-processes  run every round on the same processes (one start, preload and warm-up; quicker, noisier)
  --connections N   keep-alive connections at peak and for the half-peak runs (default 32)
  --duration S      seconds per workload, server and round, and per half-peak run (default 5)
  --turn S          at peak, each server's seconds of a round are taken in turns of about S s, the servers
                    alternating turn by turn (default 1), so that the host's drift over seconds meets them all alike
  --warmup S        unrecorded seconds per workload and server before each round's first run (default 1)
  --storage memory|mongodb   the service's storage (default memory); mongodb runs on MONGODB_URL, else on a
                    mongod already on this machine (mongodb-memory-server), else on the offline jongodb.
                    The yardsticks always keep their pets in memory.
  --scale N         read workloads at 1,000 and at N stored pets (service and node:http only), RSS per pet
  --startups N      extra cold starts of the service timed to ready (default 5; 0 for none)
  --no-pin          do not pin the servers to CPU 0 and the load generator to CPU 1
  --json FILE       also write the figures as JSON
  --cpu-prof DIR    profile the service (node --cpu-prof) and write the .cpuprofile to DIR/service (the koa-mongodb
                    yardstick's, when it runs, to DIR/koa-mongodb)
  --servers LIST    yardsticks beside the service, comma separated: node:http,koa,koa-features,fastify,koa-mongodb
                    (default: the first four; with --storage mongodb all five). koa-features is plain Koa with
                    the request id, security headers, request log and metrics every service response carries.
                    koa-mongodb, the MongoDB path's yardstick (plain Koa + the mongodb driver on the service's
                    MongoDB server), needs --storage mongodb
  --workloads LIST  workloads to run, comma separated: list,filter,get,create,create-keyed,deep (default all;
                    create-keyed, each create with a fresh Idempotency-Key, only with --storage mongodb)
  --no-half-peak    skip the half-peak latency runs (a quick CPU comparison while iterating)
  --baseline DIR    also run DIR/main.js, another build of the service (say dist/ of the commit before a change,
                    copied aside), with the same settings, as one more server in every round: a change to the
                    request path measured side by side with what it replaces, in the same run; it starts with
                    the flags of the npm start script in the package.json above DIR (a node flag's cost: a copy of
                    dist/ under a package.json whose start script adds the flag)
  --service-env K=V override one of the service's settings (repeatable), to measure what a feature costs,
                    e.g. LOG_LEVEL=warn; a run with it is an experiment, not a recorded run
  --baseline-env K=V  override one setting of the baseline build only (repeatable): with --baseline dist, the
                    same build with one feature off runs beside the service, so the gap is what the feature costs
  --tracing         also run the service with tracing on (OTEL_* variables: OTLP http/protobuf to a receiver the
                    harness starts), every request sampled and one in a hundred (parentbased_traceidratio 0.01),
                    as two more servers in every round; the service itself runs with tracing off`;

export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      pets: { type: 'string', default: '1000' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      duration: { type: 'string', default: '5' },
      turn: { type: 'string', default: '1' },
      warmup: { type: 'string', default: '1' },
      'same-processes': { type: 'boolean', default: false },
      storage: { type: 'string', default: 'memory' },
      scale: { type: 'string' },
      startups: { type: 'string', default: '5' },
      'no-pin': { type: 'boolean', default: false },
      json: { type: 'string' },
      'cpu-prof': { type: 'string' },
      servers: { type: 'string' },
      workloads: { type: 'string' },
      'no-half-peak': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      'service-env': { type: 'string', multiple: true, default: [] },
      'baseline-env': { type: 'string', multiple: true, default: [] },
      tracing: { type: 'boolean', default: false },
    },
  });
  if (values.storage !== 'memory' && values.storage !== 'mongodb') throw new Error(`--storage must be memory or mongodb\n${USAGE}`);
  const servers = values.servers ?? (values.storage === 'mongodb' ? YARDSTICKS : MEMORY_YARDSTICKS).join(',');
  const yardsticks = list('servers', servers, YARDSTICKS);
  if (yardsticks.includes(MONGO_YARDSTICK) && values.storage !== 'mongodb') throw new Error(`--servers ${MONGO_YARDSTICK} needs --storage mongodb\n${USAGE}`);
  return {
    pets: count('pets', values.pets, 1),
    rounds: count('rounds', values.rounds, 1),
    connections: count('connections', values.connections, 1),
    duration: seconds('duration', values.duration, 0.1),
    turn: seconds('turn', values.turn, 0.1),
    warmup: seconds('warmup', values.warmup, 0),
    freshProcesses: !values['same-processes'],
    storage: values.storage,
    scale: values.scale === undefined ? undefined : count('scale', values.scale, 1001),
    startups: count('startups', values.startups, 0),
    pin: !values['no-pin'],
    json: values.json,
    cpuProf: values['cpu-prof'],
    yardsticks,
    workloads: list('workloads', values.workloads ?? defaultWorkloads(values.storage).join(','), WORKLOAD_KEYS),
    halfPeak: !values['no-half-peak'],
    baseline: values.baseline === undefined ? undefined : `${values.baseline.replace(/\/$/, '')}/main.js`,
    serviceEnv: settingsOf('service-env', values['service-env']),
    baselineEnv: settingsOf('baseline-env', values['baseline-env']),
    tracing: values.tracing,
  };
}

function settingsOf(name: string, pairs: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 1) throw new Error(`--${name} takes NAME=value, got ${pair}\n${USAGE}`);
      return [pair.slice(0, eq), pair.slice(eq + 1)];
    }),
  );
}

function count(name: string, text: string, min: number): number {
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}\n${USAGE}`);
  return value;
}

function seconds(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min) throw new Error(`--${name} must be a number of seconds, at least ${min}\n${USAGE}`);
  return value;
}

function list<T extends string>(name: string, text: string, allowed: readonly T[]): T[] {
  const items = text.split(',').map((item) => item.trim()).filter((item) => item !== '');
  const unknown = items.find((item) => !(allowed as readonly string[]).includes(item));
  if (unknown !== undefined) throw new Error(`--${name}: ${unknown} is not one of ${allowed.join(', ')}\n${USAGE}`);
  return items as T[];
}
