import { Worker } from 'node:worker_threads';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { spanBatch, type SpanBatch } from './span-data.js';

// No forceFlush: the SDK's BatchSpanProcessor, the only caller, never asks an exporter for one.
type Call = { readonly call: 'export'; readonly batch: SpanBatch } | { readonly call: 'shutdown' };
export type WorkerCall = Call & { readonly id: number };
export interface WorkerReply {
  readonly id: number;
  readonly result?: ExportResult;
  readonly error?: Error;
}

const WORKER = new URL('./span-export-worker.js', import.meta.url);

/**
 * A span exporter that hands each batch, as plain data, to the exporter OTEL_TRACES_EXPORTER names running in a
 * worker thread (span-export-worker.ts), and answers with that exporter's result. Sent from the thread that serves
 * requests, a batch cost 5-7% of its req/s at 1% sampling; handed over, less, though at 100% on a single CPU the
 * worker's encoding competes with the requests (BENCHMARKS.md, issue 42). A worker that fails is replaced at the
 * next call; shutdown waits for the worker's exporter to end.
 */
export class WorkerSpanExporter implements SpanExporter {
  readonly #exporter: string;
  readonly #pending = new Map<number, (reply: WorkerReply) => void>();
  #worker: Worker | undefined;
  #ids = 0;

  /** `exporter`: `otlp` or `zipkin`. The worker starts with the first batch: a process that records no span has none. */
  constructor(exporter: string) {
    this.#exporter = exporter;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    void this.#call({ call: 'export', batch: spanBatch(spans) }).then((reply) =>
      resultCallback(reply.result ?? { code: ExportResultCode.FAILED, error: reply.error }),
    );
  }

  async shutdown(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return;
    try {
      const { error } = await this.#call({ call: 'shutdown' });
      if (error !== undefined) throw error;
    } finally {
      this.#worker = undefined;
      await worker.terminate();
    }
  }

  /**
   * Posts a call to the worker (started if there is none) and resolves with its reply, an error included; the worker
   * keeps the process alive only while a call is open.
   */
  #call(call: Call): Promise<WorkerReply> {
    const worker = this.#worker ?? this.#spawn();
    const id = ++this.#ids;
    const replied = new Promise<WorkerReply>((resolve) => this.#pending.set(id, resolve));
    if (this.#pending.size === 1) worker.ref();
    try {
      worker.postMessage({ ...call, id });
    } catch (error) {
      this.#settle(id, { id, error: error as Error });
    }
    return replied;
  }

  #spawn(): Worker {
    // No --import: the tracing preload would start tracing again inside the worker.
    const worker = new Worker(WORKER, { execArgv: [], workerData: { exporter: this.#exporter } });
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.#settle(reply.id, reply));
    worker.on('error', (error) => this.#failed(worker, error));
    worker.on('exit', (code) => this.#failed(worker, new Error(`span export worker exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #settle(id: number, reply: WorkerReply): void {
    this.#pending.get(id)?.(reply);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }

  /** Every open call fails with the worker's error; the next call starts a new worker. */
  #failed(worker: Worker, error: Error): void {
    // A worker's 'exit' follows its 'error', and a shut-down worker exits too: the calls open then are another's.
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    for (const id of [...this.#pending.keys()]) this.#settle(id, { id, error });
  }
}
