import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  readonly name: 'service' | 'yardstick';
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawning the process to its listening line. */
  readonly startupMs: number;
  stop(): Promise<void>;
}

// Clock ticks per second for /proc/<pid>/stat; 100 on every Linux this runs on (getconf CLK_TCK).
const CLK_TCK = 100;
const GC_HOOK = fileURLToPath(new URL('./gc-on-signal.js', import.meta.url));
// The yardstick prints a plain line; the service logs JSON ({"url":"http://.../v1",...,"msg":"listening"}).
const LISTENING = /listening on (http:\/\/\S+?)\/v1\b|"url":"(http:\/\/[^"]+?)\/v1"/;

/** Starts the real service from dist/main.js, the entry point of `npm start`. */
export function startService(apiKey: string, env: NodeJS.ProcessEnv, cpuProfDir?: string): Promise<BenchServer> {
  // This file runs as dist/bench/servers.js, beside the service's build output.
  const entry = fileURLToPath(new URL('../main.js', import.meta.url));
  const profile = cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`];
  return start('service', entry, { ...env, API_KEYS: apiKey }, profile);
}

export function startYardstick(apiKey: string): Promise<BenchServer> {
  return start('yardstick', fileURLToPath(new URL('./yardstick.js', import.meta.url)), { API_KEYS: apiKey });
}

async function start(
  name: BenchServer['name'],
  entry: string,
  env: NodeJS.ProcessEnv,
  nodeFlags: readonly string[] = [],
): Promise<BenchServer> {
  const spawned = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, '--expose-gc', '--import', GC_HOOK, entry], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await listeningUrl(name, child);
  return {
    name,
    url,
    pid: child.pid!,
    startupMs: performance.now() - spawned,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // Generous: a profiled service writes its .cpuprofile on the way out.
      await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

// Keeps reading both pipes for the child's whole life: a full pipe would stall a server that logs.
function listeningUrl(name: string, child: ChildProcess): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      const match = LISTENING.exec(output);
      if (match !== null) resolve((match[1] ?? match[2])!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before listening:\n${output}`)));
    setTimeout(() => reject(new Error(`${name} did not print its listening line in 10 s:\n${output}`)), 10_000).unref();
  });
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** Resident set now (VmRSS) and at its peak (VmHWM), in bytes. */
export function memory(pid: number): { rss: number; peakRss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
}

/** Full GC in the server, then its settled resident set in bytes. */
export async function settledRss(pid: number): Promise<number> {
  process.kill(pid, 'SIGUSR2');
  await sleep(500);
  return memory(pid).rss;
}
