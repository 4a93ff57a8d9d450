import { tracingRequested } from './tracing-requested.js';

// The preload of the start command (`node --import ./dist/telemetry/tracing-preload.js dist/main.js`): the MongoDB driver's
// instrumentation must patch it before the service imports it. Without OTEL_* variables
// asking for traces, nothing of OpenTelemetry is loaded.
if (tracingRequested(process.env)) {
  const { startTracing } = await import('./start-tracing.js');
  await startTracing();
}
