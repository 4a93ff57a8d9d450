import { ConfigError, type AppConfig } from './config/config.js';
import { loadConfig } from './config/load-config.js';
import { createLogger } from './telemetry/logger.js';
import { startService, type RunningService } from './server/start-service.js';
import { stopOnSignals } from './server/stop-on-signals.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = await createLogger(config);
  const service = await startService(config, { logger });
  const tracing = config.tracing ? await import('./telemetry/start-tracing.js') : undefined;
  if (tracing !== undefined && !tracing.tracingStarted()) {
    logger.warn('OTEL_* variables ask for traces, but the SDK did not start: start with node --import ./dist/telemetry/tracing-preload.js (npm start does)');
  }
  tracing?.logExportFailures(logger);
  stopOnSignals({ service, logger, timeoutMs: config.shutdownTimeoutMs, stopTracing: tracing?.stopTracing });
  const docs = { docsUrl: `${service.url}/docs`, openapiUrl: `${service.url}/v1/openapi.json` };
  if (service.generatedApiKey !== undefined) {
    // The one message that bypasses the logger: the key must never reach a log. Written (synchronously)
    // before the listening line, so whoever waits for that line finds the key already printed.
    process.stdout.write(
      `No API_KEYS configured: generated a key for this run (shown once, never logged again):\n  ${service.generatedApiKey}\n` +
        `Try: curl -H "Authorization: Bearer ${service.generatedApiKey}" ${service.url}/v1/pets\n` +
        `API reference: ${docs.docsUrl}  (OpenAPI document: ${docs.openapiUrl})\n`,
    );
  }
  logger.info(
    { appEnv: config.appEnv, storage: config.storage, tracing: config.tracing, url: `${service.url}/v1`, ...docs, metricsUrl: metricsUrl(config, service) },
    'listening',
  );
  // Log lines are batched; whoever waits for this one (an operator, an orchestrator) should not.
  logger.flush();
}

function metricsUrl(config: AppConfig, service: RunningService): string | null {
  if (config.metrics === 'off') return null;
  return `${service.metricsUrl ?? service.url}/metrics`;
}

main().catch(async (error: unknown) => {
  // A config mistake is one plain line on stderr, naming the setting; anything else is logged with its stack.
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = await createLogger({ appEnv: 'local', logLevel: 'info', logFormat: undefined });
  logger.fatal({ err: error }, 'start-up failed');
  process.exit(1);
});
