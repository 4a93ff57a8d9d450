// The built service with one team middleware that fails unexpectedly on `X-Test-Throw: plain`, started as main.ts
// starts it: config, logger, listening line. Imported after whatever the caller must load first (the tracing SDK).
const { loadConfig } = await import('../../dist/config/load-config.js');
const { createLogger } = await import('../../dist/telemetry/logger.js');
const { startService } = await import('../../dist/server/start-service.js');

export async function startThrowingService(overrides = {}) {
  const config = { ...loadConfig(), ...overrides };
  const logger = await createLogger(config);
  const throwing = (ctx, next) => {
    if (ctx.get('X-Test-Throw') === 'plain') throw new Error('an unexpected failure');
    return next();
  };
  const service = await startService(config, { logger, middleware: [throwing] });
  logger.info({ url: `${service.url}/v1` }, 'listening');
  logger.flush();
  return service;
}
