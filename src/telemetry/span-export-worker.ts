import { parentPort, workerData } from 'node:worker_threads';
import { diag, DiagConsoleLogger } from '@opentelemetry/api';
import { diagLogLevelFromString, getStringFromEnv } from '@opentelemetry/core';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { readableSpans } from './span-data.js';
import type { WorkerCall, WorkerReply } from './worker-span-exporter.js';

/*
 * The export worker (worker-span-exporter.ts starts it): the exporter OTEL_TRACES_EXPORTER names, built and run here,
 * off the thread that serves requests. It reads the same OTEL_* variables as it would there (a worker gets a copy of
 * the process's environment), OTEL_LOG_LEVEL included, as the Node SDK reads it.
 */

const logLevel = getStringFromEnv('OTEL_LOG_LEVEL');
if (logLevel !== undefined) diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });

// Calls posted meanwhile wait in the port: it delivers none before the listener below is added.
const exporter = await exporterNamed((workerData as { exporter: string }).exporter);
const port = parentPort!;

port.on('message', (call: WorkerCall) => {
  const reply = (message: Omit<WorkerReply, 'id'>) => port.postMessage({ id: call.id, ...message });
  if (call.call === 'export') {
    exporter.export(readableSpans(call.batch), ({ code, error }) => reply({ result: { code, error: error && cloneable(error) } }));
  } else {
    exporter.shutdown().then(
      () => reply({}),
      (error: unknown) => reply({ error: cloneable(error) }),
    );
  }
});

/** An error as one that crosses threads whatever it holds: its message and stack. */
function cloneable(error: unknown): Error {
  const copy = new Error(error instanceof Error ? error.message : String(error));
  if (error instanceof Error) copy.stack = error.stack;
  return copy;
}

/**
 * The exporter for `otlp` (by OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL) or `zipkin`, as @opentelemetry/sdk-node builds
 * it; only its package is loaded.
 */
async function exporterNamed(name: string): Promise<SpanExporter> {
  if (name === 'zipkin') return new (await import('@opentelemetry/exporter-zipkin')).ZipkinExporter();
  const protocol = getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  switch (protocol) {
    case 'grpc':
      return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
    case 'http/json':
      return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
    default:
      if (protocol !== 'http/protobuf') diag.warn(`Unsupported OTLP traces protocol: ${protocol}. Using http/protobuf.`);
      return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  }
}
