import { ConfigError, loadConfig } from './config.js';
import { startService } from './start-service.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await startService(config);
  process.stdout.write(
    `Animal Store Service (${config.appEnv}, storage ${config.storage}) listening on ${service.url}/v1\n`,
  );
  if (service.generatedApiKey !== undefined) {
    process.stdout.write(
      `No API_KEYS configured: generated a key for this run (shown once, never logged again):\n  ${service.generatedApiKey}\n` +
        `Try: curl -H "Authorization: Bearer ${service.generatedApiKey}" ${service.url}/v1/pets\n`,
    );
  }
  const shutdown = () => void service.stop().then(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  // One clear line for configuration mistakes; the detail for anything else.
  process.stderr.write(error instanceof ConfigError ? `${error.message}\n` : `Start-up failed: ${String(error)}\n`);
  process.exit(1);
});
