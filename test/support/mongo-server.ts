/**
 * Start a MongoDB-compatible server for tests.
 *
 * Order of choice:
 *   1. `MONGODB_URL` env var, if set: used as is, never stopped (stop() is a no-op).
 *   2. mongodb-memory-server, but ONLY if a mongod binary is already available locally
 *      (MONGOMS_SYSTEM_BINARY, or a binary cached in MONGOMS_DOWNLOAD_DIR / node_modules/.cache /
 *      ~/.cache/mongodb-binaries), or if the download URL answers a HEAD request within
 *      3 s and MONGOMS_RUNTIME_DOWNLOAD is not "false". Offline this step fails in well under a
 *      second and never attempts a download. (A naive `MongoMemoryServer.create()` offline
 *      takes ~7 s, retries 3 times and prints a stack trace.)
 *   3. jongodb: the native binary shipped by `@jongodb/memory-server-bin-linux-x64-gnu`
 *      (`bin/jongodb --host=127.0.0.1 --port=N`, prints `JONGODB_URI=mongodb://...` on stdout
 *      when it is ready, `JONGODB_START_FAILURE=...` on stderr when it is not).
 *
 * Override with `MONGO_TEST_SERVER=jongodb` or `MONGO_TEST_SERVER=mongodb-memory-server` to
 * force one (no fallback). `JONGODB_BINARY=/path/to/jongodb` overrides the binary path.
 *
 * One line is logged on stderr saying which server kind is used.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

export type MongoServerKind = 'external (MONGODB_URL)' | 'mongodb-memory-server' | 'jongodb';

export interface RunningMongo {
  /** Connection string without a database name, e.g. `mongodb://127.0.0.1:27017/`. */
  url: string;
  kind: MongoServerKind;
  /** Stop the server (no-op for an external server). Idempotent. */
  stop(): Promise<void>;
  /** pid of the server process, when we spawned it. */
  readonly pid?: number | undefined;
}

const LOG_PREFIX = '[mongo-server]';
const require = createRequire(import.meta.url);

function log(line: string): void {
  process.stderr.write(`${LOG_PREFIX} ${line}\n`);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function errMsg(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const extra = cause ? ` (${cause.code ?? cause.message ?? ''})` : '';
  return e.message.split('\n')[0]! + extra;
}

// ---------------------------------------------------------------------------------------------
// entry point
// ---------------------------------------------------------------------------------------------

export async function startMongoServer(): Promise<RunningMongo> {
  const external = process.env.MONGODB_URL?.trim();
  if (external) {
    log(`using external (MONGODB_URL) ${redact(external)}`);
    return { url: external, kind: 'external (MONGODB_URL)', stop: async () => {} };
  }

  const forced = process.env.MONGO_TEST_SERVER?.trim();
  if (forced && forced !== 'jongodb' && forced !== 'mongodb-memory-server') {
    throw new Error(`MONGO_TEST_SERVER must be "jongodb" or "mongodb-memory-server", got "${forced}"`);
  }

  const failures: string[] = [];
  if (forced !== 'jongodb') {
    const t0 = Date.now();
    try {
      const s = await startMongoMemoryServer();
      log(`using mongodb-memory-server at ${s.url} (pid ${s.pid}, ${Date.now() - t0} ms)`);
      return s;
    } catch (e) {
      failures.push(`mongodb-memory-server: ${errMsg(e)} (${Date.now() - t0} ms)`);
      if (forced) throw new Error(`Could not start a MongoDB server for tests.\n  - ${failures.join('\n  - ')}`);
    }
  }

  const t0 = Date.now();
  try {
    const s = await startJongodb();
    const why = failures.length ? ` [skipped ${failures.join('; ')}]` : '';
    log(`using jongodb at ${s.url} (pid ${s.pid}, ${Date.now() - t0} ms)${why}`);
    return s;
  } catch (e) {
    failures.push(`jongodb: ${errMsg(e)}`);
  }
  throw new Error(
    'Could not start a MongoDB server for tests. Set MONGODB_URL to use an existing server.\n  - ' +
      failures.join('\n  - '),
  );
}

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

// ---------------------------------------------------------------------------------------------
// mongodb-memory-server
// ---------------------------------------------------------------------------------------------

type MMS = typeof import('mongodb-memory-server');

async function startMongoMemoryServer(): Promise<RunningMongo> {
  let mms: MMS;
  try {
    mms = await import('mongodb-memory-server');
  } catch (e) {
    throw new Error(`package not installed (${errMsg(e)})`);
  }
  const { MongoMemoryServer, DryMongoBinary } = mms;

  // 1. Is a binary available locally? (no network; honours MONGOMS_SYSTEM_BINARY, MONGOMS_VERSION,
  //    MONGOMS_DOWNLOAD_DIR and package.json "config.mongodbMemoryServer".)
  const dryOpts = await DryMongoBinary.generateOptions({});
  let binary: string | undefined;
  try {
    binary = await DryMongoBinary.locateBinary({ version: dryOpts.version });
  } catch (e) {
    throw new Error(`MONGOMS_SYSTEM_BINARY unusable: ${errMsg(e)}`);
  }

  let downloadNeeded = false;
  if (!binary) {
    // 2. Could it download one? Decide quickly, without downloading.
    const rd = (process.env.MONGOMS_RUNTIME_DOWNLOAD ?? '').toLowerCase();
    if (['false', '0', 'no', 'off'].includes(rd)) {
      throw new Error(`no cached mongod ${dryOpts.version} and MONGOMS_RUNTIME_DOWNLOAD=${rd}`);
    }
    const url = await mongodDownloadUrl(dryOpts);
    await probeUrl(url, 3000).catch((e) => {
      throw new Error(`no cached mongod ${dryOpts.version} and download not reachable (${url}: ${errMsg(e)})`);
    });
    downloadNeeded = true;
    log(`mongodb-memory-server: downloading mongod ${dryOpts.version} from ${url} (one-off, cached afterwards)`);
  }

  const timeoutMs = downloadNeeded
    ? Number(process.env.MONGO_TEST_MMS_DOWNLOAD_TIMEOUT_MS ?? 180_000)
    : 20_000;
  const server = await withTimeout(
    MongoMemoryServer.create({ instance: { ip: '127.0.0.1', launchTimeout: 15_000 } }),
    timeoutMs,
    'MongoMemoryServer.create()',
  );
  // mongodb-memory-server spawns its own "mongo_killer" watchdog, so mongod does not outlive us.

  let stopped = false;
  const running: RunningMongo = {
    url: server.getUri(),
    kind: 'mongodb-memory-server',
    get pid() {
      return server.instanceInfo?.instance.mongodProcess?.pid;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop({ doCleanup: true, force: true });
    },
  };
  return running;
}

async function mongodDownloadUrl(opts: { version: string; platform: string; arch: string; os?: unknown }): Promise<string> {
  const explicit = process.env.MONGOMS_DOWNLOAD_URL;
  if (explicit) return explicit;
  try {
    // internal module of mongodb-memory-server-core; resolve it relative to mongodb-memory-server
    // so it works with non-hoisted node_modules (pnpm) too
    const req = createRequire(require.resolve('mongodb-memory-server'));
    const { MongoBinaryDownloadUrl } = req('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl') as {
      MongoBinaryDownloadUrl: new (o: unknown) => { getDownloadUrl(): Promise<string> };
    };
    return await new MongoBinaryDownloadUrl(opts).getDownloadUrl();
  } catch {
    return process.env.MONGOMS_DOWNLOAD_MIRROR || 'https://fastdl.mongodb.org';
  }
}

async function probeUrl(url: string, timeoutMs: number): Promise<void> {
  // fetch honours no proxy env; mongodb-memory-server honours HTTPS_PROXY — if a proxy is
  // configured, trust it and let mongodb-memory-server try.
  if (process.env.HTTPS_PROXY || process.env.https_proxy || process.env.HTTP_PROXY || process.env.http_proxy) return;
  const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

// ---------------------------------------------------------------------------------------------
// jongodb
// ---------------------------------------------------------------------------------------------

const JONGODB_PKG = '@jongodb/memory-server-bin-linux-x64-gnu';
const READY_PREFIX = 'JONGODB_URI=';
const FAILURE_PREFIX = 'JONGODB_START_FAILURE=';
const CHILD_PID_PREFIX = 'JONGODB_WRAPPER_CHILD_PID=';

export function findJongodbBinary(): string {
  const fromEnv = process.env.JONGODB_BINARY;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`JONGODB_BINARY=${fromEnv} does not exist`);
    return fromEnv;
  }
  let pkgJsonPath: string;
  try {
    pkgJsonPath = require.resolve(`${JONGODB_PKG}/package.json`);
  } catch {
    throw new Error(`package ${JONGODB_PKG} is not installed (it only exists for linux x64 glibc)`);
  }
  const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8')) as { jongodb?: { binary?: string } };
  const bin = path.join(path.dirname(pkgJsonPath), pkg.jongodb?.binary ?? 'bin/jongodb');
  if (!existsSync(bin)) throw new Error(`jongodb binary missing at ${bin}`);
  return bin;
}

/**
 * Pick a free TCP port on 127.0.0.1 BELOW the kernel's ephemeral range. Rationale: during
 * outage tests the driver keeps connecting to a dead port; if that port is in the ephemeral
 * range, Linux can occasionally "self-connect" the client socket to it (TCP simultaneous open),
 * which then blocks a restarted server (or tcp-proxy.ts) from binding the port again.
 */
export async function pickFreePort(): Promise<number> {
  let lo = 32768;
  try {
    lo = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || lo;
  } catch {
    /* not linux */
  }
  const min = 10_000;
  const max = Math.max(min + 1000, lo - 1);
  for (let i = 0; i < 50; i++) {
    const port = min + Math.floor(Math.random() * (max - min));
    if (await canListen(port)) return port;
  }
  // fall back to an OS-assigned port
  return await new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * The binary is wrapped in a tiny /bin/sh watchdog whose stdin is a pipe from this process.
 * When this process dies for ANY reason (even SIGKILL), the pipe closes, `read` returns and the
 * watchdog kills jongodb. stop() uses the same path (close stdin). No extra node process.
 */
const WATCHDOG = [
  'exec 3<&0', // keep the parent pipe as fd 3 (background jobs get /dev/null as stdin otherwise)
  '"$0" "$@" </dev/null 3<&- &',
  'c=$!',
  `echo "${CHILD_PID_PREFIX}$c"`,
  // reader: EOF on the pipe = parent died or stop() -> TERM, then KILL after 3 s
  '( while read -r _l; do :; done; kill -TERM $c 2>/dev/null; sleep 3; kill -KILL $c 2>/dev/null ) <&3 &',
  'r=$!',
  'exec 3<&-',
  'wait $c; code=$?',
  'kill $r 2>/dev/null',
  'exit $code', // server exited (crash, bad args, stop()) -> wrapper exits too
].join('\n');

interface JongodbProcess {
  wrapper: ChildProcess;
  serverPid: number;
  url: string;
  exited: Promise<void>;
}

const liveServerPids = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Belt and braces for normal exits (the watchdog covers crashes / signals).
  process.on('exit', () => {
    for (const pid of liveServerPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
}

async function spawnJongodb(bin: string, port: number, args: readonly string[], readyTimeoutMs = 10_000): Promise<JongodbProcess> {
  installExitHook();
  const wrapper = spawn('/bin/sh', ['-c', WATCHDOG, bin, '--host=127.0.0.1', `--port=${port}`, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  const exited = new Promise<void>((resolve) => wrapper.once('exit', () => resolve()));
  const stderrTail: string[] = [];
  let serverPid = 0;

  const ready = new Promise<string>((resolve, reject) => {
    let outBuf = '';
    wrapper.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      outBuf += chunk;
      let nl: number;
      while ((nl = outBuf.indexOf('\n')) >= 0) {
        const line = outBuf.slice(0, nl).trim();
        outBuf = outBuf.slice(nl + 1);
        if (line.startsWith(CHILD_PID_PREFIX)) {
          serverPid = Number(line.slice(CHILD_PID_PREFIX.length));
          liveServerPids.add(serverPid);
        } else if (line.startsWith(READY_PREFIX)) resolve(line.slice(READY_PREFIX.length));
      }
    });
    let errBuf = '';
    wrapper.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errBuf += chunk;
      let nl: number;
      while ((nl = errBuf.indexOf('\n')) >= 0) {
        const line = errBuf.slice(0, nl);
        errBuf = errBuf.slice(nl + 1);
        stderrTail.push(line);
        if (stderrTail.length > 30) stderrTail.shift();
        if (line.startsWith(FAILURE_PREFIX)) reject(new Error(`jongodb failed to start: ${line.slice(FAILURE_PREFIX.length)}`));
      }
    });
    wrapper.once('error', reject);
    wrapper.once('exit', (code, sig) =>
      reject(new Error(`jongodb exited before ready (code ${code}, signal ${sig}): ${stderrTail.slice(-5).join(' | ')}`)),
    );
  });

  let uri: string;
  try {
    uri = await withTimeout(ready, readyTimeoutMs, 'jongodb startup');
  } catch (e) {
    await killWrapper({ wrapper, serverPid, url: '', exited });
    throw e;
  }
  // Don't let a forgotten server keep the test process alive.
  wrapper.unref();
  (wrapper.stdin as unknown as net.Socket).unref?.();
  (wrapper.stdout as unknown as net.Socket).unref?.();
  (wrapper.stderr as unknown as net.Socket).unref?.();

  // jongodb prints mongodb://127.0.0.1:PORT/test — strip the db name; tests pick their own.
  const u = new URL(uri);
  return { wrapper, serverPid, url: `mongodb://${u.host}/`, exited };
}

async function killWrapper(p: JongodbProcess): Promise<void> {
  // re-ref so that awaiting the exit keeps the event loop alive
  p.wrapper.ref();
  (p.wrapper.stdout as unknown as net.Socket | null)?.ref?.();
  p.wrapper.stdin?.end(); // watchdog: EOF -> TERM server -> wait -> exit
  const done = await Promise.race([p.exited.then(() => true), delay(5000, true).then(() => false)]);
  if (!done) {
    if (p.serverPid) try { process.kill(p.serverPid, 'SIGKILL'); } catch { /* gone */ }
    p.wrapper.kill('SIGKILL');
    await p.exited;
  }
  liveServerPids.delete(p.serverPid);
}

function delay(ms: number, unref = false): Promise<void> {
  return new Promise((r) => {
    const t = setTimeout(r, ms);
    if (unref) t.unref();
  });
}

/** `args` go to the binary as they are, e.g. `--topology-profile=singleNodeReplicaSet --replica-set-name=rs0`. */
export async function startJongodb(args: readonly string[] = []): Promise<RunningMongo> {
  const bin = findJongodbBinary();
  let current: JongodbProcess | undefined;
  let lastErr: unknown;
  for (let attempt = 0; attempt < 3 && !current; attempt++) {
    try {
      current = await spawnJongodb(bin, await pickFreePort(), args);
    } catch (e) {
      lastErr = e; // port race: retry with another port
    }
  }
  if (!current) throw lastErr instanceof Error ? lastErr : new Error(String(lastErr));

  const running: RunningMongo = {
    url: current.url,
    kind: 'jongodb',
    get pid() {
      return current?.serverPid;
    },
    async stop() {
      if (current) {
        const p = current;
        current = undefined;
        await killWrapper(p);
      }
    },
  };
  return running;
}

// ---------------------------------------------------------------------------------------------
// db-name convention
// ---------------------------------------------------------------------------------------------

/**
 * Unique, valid database name (max 63 bytes, no `/\. "$*<>:|?`). Use one per test file and
 * drop it in afterAll: `await client.db(name).dropDatabase()`.
 */
export function freshDbName(hint = 'test'): string {
  const clean = hint.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 30);
  const rand = Math.random().toString(36).slice(2, 8);
  return `t_${clean}_${process.pid.toString(36)}_${Date.now().toString(36)}_${rand}`.slice(0, 63);
}
