import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TEST_API_KEY } from './test-config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly port: number;
  /** Resolves with the first log line whose msg is this. */
  logged(msg: string): Promise<Record<string, unknown>>;
  /** Every JSON log line read so far. */
  readonly lines: () => readonly Record<string, unknown>[];
  readonly exited: Promise<number | null>;
}

/** Runs the built service (node dist/main.js) as a real process and follows its JSON log on stdout. */
export async function startChild(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      API_KEYS: TEST_API_KEY,
      LOG_FORMAT: 'json',
      METRICS: 'off',
      ...env,
    },
  });
  const lines: Record<string, unknown>[] = [];
  const waiting: Array<() => void> = [];
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => {
    buffered += data;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    waiting.splice(0).forEach((wake) => wake());
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const logged = async (msg: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = lines.find((line) => line.msg === msg);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const listening = await logged('listening');
  return { process: child, port: Number(new URL(String(listening.url)).port), logged, lines: () => lines, exited };
}

