import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TEST_API_KEY } from './test-config.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves with the first JSON log line whose msg is this. */
  logged(msg: string): Promise<Record<string, unknown>>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Every JSON log line read so far. */
  lines(): readonly Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  /** Resolves once the process has exited and all its output has been read. */
  readonly closed: Promise<void>;
}

export interface SpawnOptions {
  /** The command; default the built service as the tests run it, `node dist/main.js` in the checkout. */
  readonly command?: readonly string[];
  readonly cwd?: string;
  /** Added to a minimal environment: a free port on loopback, the test key, JSON logs, no metrics. */
  readonly env?: Record<string, string>;
  /** Opens an IPC channel to the process (process.send and 'message'). */
  readonly ipc?: boolean;
  /** Starts it in a process group of its own, so that `process.kill(-pid, signal)` reaches the whole group. */
  readonly detached?: boolean;
}

/** Runs the service as a real process and follows its JSON log on stdout. */
export function spawnService({ command = [process.execPath, 'dist/main.js'], cwd = ROOT, env = {}, ipc = false, detached = false }: SpawnOptions = {}): ServiceProcess {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, {
    cwd,
    detached,
    stdio: ['pipe', 'pipe', 'pipe', ...(ipc ? ['ipc' as const] : [])],
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      API_KEYS: TEST_API_KEY,
      LOG_FORMAT: 'json',
      METRICS: 'off',
      ...env,
    },
  }) as ChildProcessWithoutNullStreams;
  const lines: Record<string, unknown>[] = [];
  const waiting: Array<() => void> = [];
  let all = '';
  let buffered = '';
  child.stderr.setEncoding('utf8').on('data', (data: string) => (all += data));
  child.stdout.setEncoding('utf8').on('data', (data: string) => {
    all += data;
    buffered += data;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    waiting.splice(0).forEach((wake) => wake());
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  // A process that ends before logging `msg` fails the wait instead of hanging the test ('close': output read).
  const gone = once(child, 'close').then(([code]) => Promise.reject(new Error(`exited with ${code} before logging; output:\n${all}`)));
  gone.catch(() => undefined);
  const logged = async (msg: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.find((line) => line.msg === msg);
      if (found !== undefined) return found;
      await Promise.race([new Promise<void>((resolve) => waiting.push(resolve)), gone]);
    }
  };
  const closed = once(child, 'close').then(() => undefined);
  return { process: child, logged, output: () => all, lines: () => lines, exited, closed };
}

/** The port in the `listening` log line's url. */
export function portOf(listening: Record<string, unknown>): number {
  return Number(new URL(String(listening.url)).port);
}

export interface ListeningService extends ServiceProcess {
  readonly port: number;
}

/** The built service (node dist/main.js), started and listening; resolves with its port. */
export async function startListening(env: Record<string, string>): Promise<ListeningService> {
  const child = spawnService({ env });
  return { ...child, port: portOf(await child.logged('listening')) };
}
