import { fork } from 'node:child_process';
import { once } from 'node:events';

/**
 * A local OTLP/HTTP endpoint for the traced servers (--tracing): it takes every export and keeps only counts. It runs
 * in a process of its own, started after the load generator is pinned, so on the load generator's CPU. Inside the
 * load generator's process, the 1% server sat idle 7% of its list turns against 4-5% for tracing off
 * (BENCHMARKS.md, issue 42's eighteenth session).
 */
export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  /** Export requests and body bytes received so far. */
  received(): Promise<Counts>;
  stop(): Promise<void>;
}

interface Counts {
  readonly requests: number;
  readonly bytes: number;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const child = fork(new URL('./otlp-receiver-process.js', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    url: `http://127.0.0.1:${port}`,
    received: async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the OTLP receiver exited (${child.exitCode ?? child.signalCode})`);
      const answer = once(child, 'message') as Promise<[Counts]>;
      child.send('counts');
      return (await answer)[0];
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
