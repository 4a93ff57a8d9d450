import { register } from 'node:module';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { exportFailureLog } from './export-failure-log.js';
import { PooledIdGenerator } from './pooled-id-generator.js';
import type { Logger } from './logger.js';

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry Node SDK configured by its OTEL_* variables (exporter, protocol, endpoint, sampler,
 * resource, propagators) with the instrumentation of the MongoDB driver (log lines get their trace ids from logger.ts's mixin); the service starts each request's
 * server span itself (request-tracing.ts). Traces only: metrics stay on /metrics and logs on stdout.
 * `spanProcessors` replace the exporter the variables choose (tests).
 */
export async function startTracing(spanProcessors?: NodeSDKConfiguration['spanProcessors']): Promise<void> {
  if (sdk !== undefined) return;
  // ES modules are patched through import-in-the-middle's loader hook, which wraps only the packages the
  // instrumentations name (imported by their bare names, as the service imports them).
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  sdk = new NodeSDK({
    instrumentations: [
      // Statements are recorded with every value replaced by '?' (the default): no name or key reaches a span.
      // A command outside any request's span (start-up, readiness) makes none (requireParentSpan).
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
    // Asked for a trace id and a span id by every request, sampled or not.
    idGenerator: new PooledIdGenerator(),
    metricReaders: [],
    logRecordProcessors: [],
    ...(spanProcessors === undefined ? {} : { spanProcessors }),
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
}

/** Whether the SDK runs in this process (the start command's preload started it). */
export function tracingStarted(): boolean {
  return sdk !== undefined;
}

/**
 * Logs what the SDK reports through OpenTelemetry's global error handler (a failed span export above all), at most
 * one line a minute. Its default handler writes to OpenTelemetry's diag channel, which nothing reads.
 */
export function logExportFailures(logger: Logger): void {
  const report = exportFailureLog(logger);
  // Outside any trace: the exporter's timer may have been started within a sampled request, which it is no part of.
  setGlobalErrorHandler((error) => context.with(ROOT_CONTEXT, report, undefined, error));
}

/** Ends the SDK, exporting the spans it still holds. */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = undefined;
  await running?.shutdown();
}
