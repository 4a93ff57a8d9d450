import { parentPort, workerData } from 'node:worker_threads';
import { diag, DiagConsoleLogger } from '@opentelemetry/api';
import { diagLogLevelFromString, getStringFromEnv } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
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

const exporter = exporterNamed((workerData as { exporter: string }).exporter);
const port = parentPort!;

port.on('message', (call: WorkerCall) => {
  const reply = (message: Omit<WorkerReply, 'id'>) => port.postMessage({ id: call.id, ...message });
  if (call.call === 'export') {
    exporter.export(readableSpans(call.batch), ({ code, error }) => reply({ result: { code, error: error && cloneable(error) } }));
  } else {
    const done = call.call === 'forceFlush' ? exporter.forceFlush?.() : exporter.shutdown();
    Promise.resolve(done).then(
      () => reply({}),
      (error: unknown) => reply({ error: cloneable(error) }),
    );
  }
});
port.postMessage({ ready: true });

/** An error as one that crosses threads whatever it holds: its message and stack. */
function cloneable(error: unknown): Error {
  const copy = new Error(error instanceof Error ? error.message : String(error));
  if (error instanceof Error) copy.stack = error.stack;
  return copy;
}

/** The exporter for `otlp` (by OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL) or `zipkin`, as @opentelemetry/sdk-node builds it. */
function exporterNamed(name: string): SpanExporter {
  if (name === 'zipkin') return new ZipkinExporter();
  const protocol = getStringFromEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? getStringFromEnv('OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  switch (protocol) {
    case 'grpc':
      return new GrpcExporter();
    case 'http/json':
      return new JsonExporter();
    case 'http/protobuf':
      return new ProtobufExporter();
    default:
      diag.warn(`Unsupported OTLP traces protocol: ${protocol}. Using http/protobuf.`);
      return new ProtobufExporter();
  }
}
