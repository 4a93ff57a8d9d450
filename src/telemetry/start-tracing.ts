import { register } from 'node:module';
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { setGlobalErrorHandler } from '@opentelemetry/core';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { exportFailureLog } from './export-failure-log.js';
import { LinkedContextManager } from './linked-context.js';
import { PooledIdGenerator } from './pooled-id-generator.js';
import { SampledOnce } from './sampled-once.js';
import { samplerFromEnv } from './sampler-from-env.js';
import { spanProcessorsFromEnv } from './span-processors-from-env.js';
import type { Logger } from './logger.js';

let sdk: NodeSDK | undefined;
let sampling: SampledOnce | undefined;

/**
 * Starts the OpenTelemetry Node SDK configured by its OTEL_* variables (resource, propagators, limits; the sampler
 * and the exporters they name are built here, sampler-from-env.ts and span-processors-from-env.ts) with the
 * instrumentation of the MongoDB driver (log lines get their trace ids from logger.ts's mixin); the service starts
 * each request's server span itself (request-tracing.ts). Traces only: metrics stay on /metrics and logs on stdout.
 * `spanProcessors` replace the exporter the variables choose (tests).
 */
export async function startTracing(spanProcessors?: NodeSDKConfiguration['spanProcessors']): Promise<void> {
  if (sdk !== undefined) return;
  // ES modules are patched through import-in-the-middle's loader hook, which wraps only the packages the
  // instrumentations name (imported by their bare names, as the service imports them).
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  sampling = new SampledOnce(samplerFromEnv(), new PooledIdGenerator());
  sdk = new NodeSDK({
    instrumentations: [
      // Statements are recorded with every value replaced by '?' (the default): no name or key reaches a span.
      // A command outside any request's span (start-up, readiness) makes none (requireParentSpan).
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true }),
    ],
    // Each request is decided before its span starts (request-tracing.ts); the SDK takes that decision and trace id.
    sampler: sampling,
    idGenerator: sampling.ids,
    // Contexts without closures, so that a recorded request's spans die young (linked-context.ts).
    contextManager: new LinkedContextManager(),
    metricReaders: [],
    logRecordProcessors: [],
    spanProcessors: spanProcessors ?? spanProcessorsFromEnv(),
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
}

/** Whether the SDK runs in this process (the start command's preload started it). */
export function tracingStarted(): boolean {
  return sdk !== undefined;
}

/** The sampler the SDK runs with, for request-tracing.ts to decide each request before any span; none when not started. */
export function requestSampling(): SampledOnce | undefined {
  return sampling;
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
  sampling = undefined;
  await running?.shutdown();
}
