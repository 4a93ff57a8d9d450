// The built service as npm start runs it, with one team middleware that fails unexpectedly on `X-Test-Throw: plain`.
import { loadConfig } from '../../dist/config/load-config.js';
import { createLogger } from '../../dist/telemetry/logger.js';
import { startService } from '../../dist/server/start-service.js';

const config = loadConfig();
const logger = await createLogger(config);
const throwing = (ctx, next) => {
  if (ctx.get('X-Test-Throw') === 'plain') throw new Error('an unexpected failure');
  return next();
};
const service = await startService(config, { logger, middleware: [throwing] });
logger.info({ url: `${service.url}/v1` }, 'listening');
logger.flush();
process.on('SIGTERM', () => void service.stop().then(() => process.exit(0)));
