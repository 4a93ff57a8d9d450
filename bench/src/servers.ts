import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LogFile } from './log-file.js';
import { readMongoCommands, type CommandCounts } from './mongo-commands.js';
import type { LoopDelay } from './server-probe.js';

/**
/**
 * 'baseline' is another build of the service (--baseline), measured beside this one; 'service-memory' is this
 * build on memory storage, beside the service on MongoDB (--storage mongodb), measured against the in-memory
 * yardsticks; 'traced 100%' and 'traced 1%' are this build with tracing on (--tracing), every request sampled or
 * one in a hundred.
 */
export type ServerName = 'service' | 'baseline' | 'service-memory' | 'traced 100%' | 'traced 1%' | 'node:http' | 'koa' | 'koa-features' | 'fastify' | 'koa-mongodb';
export const TRACED = ['traced 100%', 'traced 1%'] as const satisfies readonly ServerName[];
/** Every yardstick: the four in-memory ones, then plain Koa + the mongodb driver (with --storage mongodb only). */
export const YARDSTICKS = ['node:http', 'koa', 'koa-features', 'fastify', 'koa-mongodb'] as const satisfies readonly ServerName[];
export type YardstickName = (typeof YARDSTICKS)[number];
/** The yardsticks that keep their pets in memory: the CPU reference of the request path alone. */
export const MEMORY_YARDSTICKS = ['node:http', 'koa', 'koa-features', 'fastify'] as const satisfies readonly YardstickName[];
/** The yardstick of the MongoDB path, on the service's MongoDB server (its own database). */
export const MONGO_YARDSTICK = 'koa-mongodb' satisfies YardstickName;

export interface BenchServer {
  readonly name: ServerName;
  /** http://host:port, without /v1. */
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawning the process to its listening line (NaN when a service build logs none, below info). */
  readonly listeningMs: number;
  /** Milliseconds from spawning to the first 200 from GET /readyz (the service), or the listening line. */
  readonly readyMs: number;
  /** The event loop's delay since the previous call (see server-probe.ts). */
  loopDelay(): Promise<LoopDelay>;
  /** A full GC in the server. */
  fullGc(): Promise<void>;
  /**
   * The MongoDB commands it has sent so far, by command: the service's /metrics counter, the MongoDB yardstick's
   * own count (driver command monitoring); null when the service does not expose it; absent for a server without MongoDB.
   */
  readonly mongoCommands?: () => Promise<CommandCounts | null>;
  /** The pid of the MongoDB server it uses, when the bench started that server (its CPU is read around each run). */
  readonly mongoServerPid?: number;
  stop(): Promise<void>;
}

/** The service measured: the package this bench sits in (the workspace root), started as its npm start starts it. */
const SERVICE_PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));
const SERVICE_ENTRY = resolve(dirname(SERVICE_PACKAGE), startScriptCommand(SERVICE_PACKAGE).at(-1)!);
const YARDSTICK_ENTRIES: Readonly<Record<YardstickName, string>> = {
  'node:http': './yardstick.js',
  koa: './plain-koa.js',
  'koa-features': './koa-features.js',
  fastify: './fastify-yardstick.js',
  'koa-mongodb': './koa-mongodb.js',
};
const PROBE = fileURLToPath(new URL('./server-probe.js', import.meta.url));
/** The node flags `npm start` gives the service (its package.json), so that the service measured is the one started. */
const START_FLAGS = startScriptFlags(SERVICE_PACKAGE);

/**
 * The node options a server starts with: the service as this package's npm start starts it, a baseline build
 * as the package.json above it says (another checkout starts as its own npm start does; a copy of dist/ under
 * a package.json with other flags measures those flags side by side). The yardsticks keep Node's defaults.
 */
export function startFlagsOf(name: ServerName, entry: string): readonly string[] {
  if (name === 'service' || name === 'service-memory' || isTraced(name)) return START_FLAGS;
  return name === 'baseline' ? startScriptFlags(nearestPackageJson(dirname(entry))) : [];
}
// Yardsticks print "... listening on http://host:port/v1"; the service logs JSON ({"url":"http://.../v1",...}).
const LISTENING = /listening on (http:\/\/\S+?)\/v1\b|"url":"(http:\/\/[^"]+?)\/v1"/;

export interface StartSettings {
  /** Command prefix that pins the server to a CPU (see cpu-pinning.ts). */
  readonly prefix: readonly string[];
  /** Environment of the service (storage, features, API_KEYS); yardsticks get none of it. */
  readonly serviceEnv: NodeJS.ProcessEnv;
  /** Directory for the .cpuprofile of the service (DIR/service) and of the MongoDB yardstick (DIR/koa-mongodb). */
  readonly cpuProfDir?: string | undefined;
  /** The entry point (main.js) of the baseline build, when there is one. */
  readonly baselineEntry?: string | undefined;
  /** Settings of the baseline build that differ from the service's (--baseline-env): what one feature costs. */
  readonly baselineEnv?: Readonly<Record<string, string>> | undefined;
  /** The MongoDB yardstick's server and database (the service's server, another database); needed to start it. */
  readonly yardstickMongo?: { readonly url: string; readonly db: string } | undefined;
  /** The pid of the MongoDB server, when the bench started it (not for MONGODB_URL). */
  readonly mongoServerPid?: number | undefined;
  /** The OTLP/HTTP endpoint the traced servers export to (--tracing). */
  readonly otlpEndpoint?: string | undefined;
}

const isTraced = (name: ServerName): name is (typeof TRACED)[number] => (TRACED as readonly ServerName[]).includes(name);

/** The standard variables of a traced server: the default exporter (OTLP, http/protobuf) to the harness's receiver. */
function tracingEnv(name: (typeof TRACED)[number], endpoint: string | undefined): Record<string, string> {
  if (endpoint === undefined) throw new Error(`${name} needs the harness's OTLP receiver`);
  const sampler: Record<string, string> = name === 'traced 1%' ? { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.01' } : {};
  // A queue that holds a second of spans at peak: the default (2048 every 5 s) would drop most of them unexported.
  return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_MAX_QUEUE_SIZE: '100000', OTEL_BSP_SCHEDULE_DELAY: '1000', ...sampler };
}

export async function startServer(name: ServerName, settings: StartSettings): Promise<BenchServer> {
  // The baseline is started, configured and awaited as the service is; only the service is profiled.
  const isService = name === 'service' || name === 'baseline' || name === 'service-memory' || isTraced(name);
  const entry = entryOf(name, settings);
  // The service, and the MongoDB path's yardstick beside it, each into a directory of its own under --cpu-prof.
  const profiled = name === 'service' || name === MONGO_YARDSTICK;
  const profile = profiled && settings.cpuProfDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${join(settings.cpuProfDir, name)}`] : [];
  const [command, ...prefixArgs] = [...settings.prefix, process.execPath];
  const ownEnv = isService ? serviceEnvOf(name, settings) : yardstickEnv(name, settings);
  // A service build is found on the port chosen here and is ready at its first /readyz 200, so it needs no
  // listening line: one that logs below info (LOG_LEVEL=warn, what the request log costs) is measured too.
  const port = isService ? await freePort() : 0;
  // A service build, and Koa + features, log every request: stdout goes to a file (log-file.ts); other yardsticks print one line.
  const log = isService || name === 'koa-features' ? new LogFile() : undefined;
  const spawned = performance.now();
  const child = spawn(command!, [...prefixArgs, ...startFlagsOf(name, entry), ...profile, '--expose-gc', '--import', PROBE, entry], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...ownEnv },
    stdio: ['ignore', log?.fd ?? 'pipe', 'pipe', 'ipc'],
  });
  const output = watchOutput(name, child, log);
  let url: string;
  let listeningMs = NaN;
  let readyMs: number;
  try {
    if (isService) {
      url = `http://127.0.0.1:${port}`;
      void output.listening.then(() => (listeningMs = performance.now() - spawned), () => undefined);
      await Promise.race([untilReady(url), output.failed]);
      readyMs = performance.now() - spawned;
      // The line is flushed right after listening, so it is seldom behind /readyz; below info it never comes.
      await Promise.race([output.listening, sleep(1000)]);
    } else {
      url = await Promise.race([output.listening, output.failed]);
      listeningMs = readyMs = performance.now() - spawned;
    }
  } catch (error) {
    // A server that never got ready would keep the harness alive, waiting on its pipes.
    child.kill('SIGKILL');
    log?.remove();
    throw error;
  } finally {
    output.stopWatching();
  }
  return {
    name,
    url,
    pid: child.pid!,
    listeningMs,
    readyMs,
    loopDelay: () => loopDelayOf(child),
    fullGc: async () => void (await ask(child, 'gc')),
    // A baseline build on MongoDB counts its commands too: a change's round trips, before and after, in one run.
    ...((name === 'service' || name === 'baseline') && serviceEnvOf(name, settings).STORAGE === 'mongodb' ? { mongoCommands: () => readMongoCommands(url) } : {}),
    ...(name === MONGO_YARDSTICK ? { mongoCommands: async () => ((await ask(child, 'commands')) as { commands: CommandCounts }).commands } : {}),
    ...(usesMongo(name, settings) && settings.mongoServerPid !== undefined ? { mongoServerPid: settings.mongoServerPid } : {}),
    stop: async () => {
      await stopChild(child);
      log?.remove();
    },
  };
}

function entryOf(name: ServerName, settings: StartSettings): string {
  if (name === 'baseline') return resolve(settings.baselineEntry ?? 'missing --baseline');
  if (isYardstick(name)) return fileURLToPath(new URL(YARDSTICK_ENTRIES[name], import.meta.url));
  return SERVICE_ENTRY;
}

const isYardstick = (name: ServerName): name is YardstickName => (YARDSTICKS as readonly ServerName[]).includes(name);

const usesMongo = (name: ServerName, settings: StartSettings) =>
  name === MONGO_YARDSTICK || (name === 'service' && settings.serviceEnv.STORAGE === 'mongodb') || (name === 'baseline' && settings.serviceEnv.STORAGE === 'mongodb');

function serviceEnvOf(name: ServerName, settings: StartSettings): NodeJS.ProcessEnv {
  if (name === 'baseline') return { ...settings.serviceEnv, ...settings.baselineEnv };
  if (name === 'service') return settings.serviceEnv;
  if (isTraced(name)) return { ...settings.serviceEnv, ...tracingEnv(name, settings.otlpEndpoint) };
  // Every setting of the service but its storage.
  const { MONGODB_URL: _url, MONGODB_DB: _db, ...rest } = settings.serviceEnv;
  return { ...rest, STORAGE: 'memory' };
}

function yardstickEnv(name: ServerName, settings: StartSettings): NodeJS.ProcessEnv {
  if (name !== MONGO_YARDSTICK) return {};
  if (settings.yardstickMongo === undefined) throw new Error(`the ${name} yardstick needs --storage mongodb`);
  return { MONGODB_URL: settings.yardstickMongo.url, MONGODB_DB: settings.yardstickMongo.db };
}

// A baseline's dist/ is in its checkout, or copied aside under a package.json of its own.
function nearestPackageJson(dir: string): string {
  const file = join(dir, 'package.json');
  if (existsSync(file)) return file;
  if (dirname(dir) === dir) throw new Error('no package.json above the baseline build');
  return nearestPackageJson(dirname(dir));
}

/**
 * Why the servers cannot be measured on `version`, the Node.js running the harness (each server is spawned with
 * process.execPath), when it is older than package.json's engines allow: `npm run bench` runs the package's own
 * Node.js 24, while `node bench/dist/run.js` from a shell may run the system's older one, whose figures would pass
 * for the service's. Undefined when it will do.
 */
export function unsupportedNode(version: string, packageJson: string = SERVICE_PACKAGE): string | undefined {
  const range = (JSON.parse(readFileSync(packageJson, 'utf8')) as { engines?: { node?: string } }).engines?.node;
  const least = /^>=\s*(\d+)/.exec(range ?? '')?.[1];
  if (least === undefined) throw new Error(`engines.node in ${packageJson} is not ">=N": ${range}`);
  if (Number(/^v?(\d+)/.exec(version)?.[1]) >= Number(least)) return undefined;
  return `the servers would run on Node.js ${version}, and the package needs ${range}: run the bench through npm run bench`;
}

/** The package's start script as a command, `node <options> dist/main.js` (without the `exec` that lets signals reach node). */
export function startScriptCommand(packageJson: string): string[] {
  const start = (JSON.parse(readFileSync(packageJson, 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.trim().split(/\s+/);
  const command = words[0] === 'exec' ? words.slice(1) : words;
  if (command[0] !== 'node' || command.at(-1) !== 'dist/main.js') throw new Error(`npm start is not "[exec] node [flags] dist/main.js": ${start}`);
  return command;
}

/**
 * The options in `node <options> dist/main.js`, the package's start script; a relative `--import` (the tracing
 * preload) is resolved from the package's directory, as npm start runs it there.
 */
export function startScriptFlags(packageJson: string): string[] {
  const flags = startScriptCommand(packageJson).slice(1, -1);
  const relative = (word: string) => word.startsWith('./') || word.startsWith('../');
  return flags.map((word, i) => (flags[i - 1] === '--import' && relative(word) ? resolve(dirname(packageJson), word) : word));
}

/** An idle process on the servers' CPU whose event-loop stalls are the machine's (idle-probe.ts). */
export interface MachineProbe {
  /** Its event loop's delay since the previous call. */
  loopDelay(): Promise<LoopDelay>;
  stop(): Promise<void>;
}

export async function startMachineProbe(prefix: readonly string[]): Promise<MachineProbe> {
  const [command, ...prefixArgs] = [...prefix, process.execPath];
  const entry = fileURLToPath(new URL('./idle-probe.js', import.meta.url));
  const child = spawn(command!, [...prefixArgs, '--import', PROBE, entry], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  // Its first answer says it is up; the histogram starts over with it.
  await ask(child, 'loop');
  return { loopDelay: () => loopDelayOf(child), stop: () => stopChild(child) };
}

const loopDelayOf = async (child: ChildProcess): Promise<LoopDelay> => ((await ask(child, 'loop')) as { loop: LoopDelay }).loop;

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // Generous: a profiled service writes its .cpuprofile on the way out.
  const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(kill);
}

interface OutputWatch {
  /** The URL of the listening line; pending until it is printed. */
  readonly listening: Promise<string>;
  /** Rejects when the child exits, or is not ready within 10 s. */
  readonly failed: Promise<never>;
  /** From now on the output is read and dropped undecoded. */
  stopWatching(): void;
}

// Keeps reading the pipes for the child's whole life: a full pipe would stall the server. Once it is ready,
// what follows is read and dropped undecoded. A stdout that goes to a file is polled for the listening line
// until then (every 5 ms: its start-up figure is to /readyz, the listening line's is to within 5 ms).
function watchOutput(name: string, child: ChildProcess, log: LogFile | undefined): OutputWatch {
  let output = '';
  let found: (url: string) => void = () => undefined;
  const listening = new Promise<string>((resolve) => (found = resolve));
  const search = (text: string) => {
    const match = LISTENING.exec(text);
    if (match !== null) found((match[1] ?? match[2])!);
  };
  const onData = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    search(output);
  };
  const pipes = [child.stdout, child.stderr].filter((pipe) => pipe !== null);
  for (const pipe of pipes) pipe.on('data', onData);
  const poll = log === undefined ? undefined : setInterval(() => search(log.head()), 5);
  const everything = () => (log === undefined ? output : `${log.head()}${output}`);
  let timer: NodeJS.Timeout | undefined;
  let exited: (code: number | null) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    exited = (code) => reject(new Error(`${name} exited (${code}) before it was ready:\n${everything()}`));
    child.once('exit', exited);
    timer = setTimeout(() => reject(new Error(`${name} was not ready in 10 s:\n${everything()}`)), 10_000);
  });
  failed.catch(() => undefined);
  return {
    listening,
    failed,
    stopWatching: () => {
      // A server that failed is killed and its log removed: its exit must not read that log.
      child.off('exit', exited);
      clearTimeout(timer);
      clearInterval(poll);
      for (const pipe of pipes) {
        pipe.off('data', onData);
        pipe.resume();
      }
    },
  };
}

/** A port nothing listens on now (the kernel's pick), for a server that is told its port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

async function untilReady(url: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    if ((await statusOf(`${url}/readyz`)) === 200) return;
    await sleep(2);
  }
  throw new Error(`${url}/readyz did not answer 200 within 10 s`);
}

// node:http rather than fetch: the first fetch of a process loads undici, tens of ms that would count as start-up.
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', () => resolve(0));
  });
}

/** Sends a probe command over the IPC channel and waits for its answer. */
function ask(child: ChildProcess, command: 'loop' | 'gc' | 'commands'): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to '${command}' from pid ${child.pid}`)), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.send(command);
  });
}
