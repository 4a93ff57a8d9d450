import { diag } from '@opentelemetry/api';
import { getNumberFromEnv, getStringListFromEnv } from '@opentelemetry/core';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { WorkerSpanExporter } from './worker-span-exporter.js';

/**
 * The span processors OTEL_TRACES_EXPORTER and OTEL_BSP_* ask for, chosen as @opentelemetry/sdk-node chooses them
 * when given none (its getSpanProcessorsFromEnv, which it does not export), but for where the exporter runs: `otlp`
 * and `zipkin` run in a worker thread (worker-span-exporter.ts) behind the SDK's BatchSpanProcessor; `console`
 * prints on this thread, span by span, as there.
 */
export function spanProcessorsFromEnv(): SpanProcessor[] {
  let names = [...new Set(getStringListFromEnv('OTEL_TRACES_EXPORTER'))].filter((name) => name !== 'null');
  if (names[0] === 'none') return [];
  if (names.length === 0 || names.includes('none')) names = ['otlp'];
  const processors: SpanProcessor[] = [];
  for (const name of names) {
    if (name === 'console') processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
    else if (name === 'otlp' || name === 'zipkin') processors.push(batchProcessor(new WorkerSpanExporter(name)));
    else diag.warn(`Unrecognized OTEL_TRACES_EXPORTER value: ${name}.`);
  }
  return processors;
}

function batchProcessor(exporter: WorkerSpanExporter): SpanProcessor {
  return new BatchSpanProcessor({
    exporter,
    maxQueueSize: positiveFromEnv('OTEL_BSP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: positiveFromEnv('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: positiveFromEnv('OTEL_BSP_EXPORT_TIMEOUT'),
    maxExportBatchSize: positiveFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  });
}

function positiveFromEnv(name: string): number | undefined {
  const value = getNumberFromEnv(name);
  if (value === undefined || value > 0) return value;
  diag.warn(`${name} (${value}) is invalid, expected number greater than 0, using default.`);
  return undefined;
}
