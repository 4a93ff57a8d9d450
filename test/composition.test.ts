import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import { loadConfig } from '../src/load-config.js';
import { startService, type RunningService } from '../src/start-service.js';

describe('the composition root', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1' }));
  });
  afterAll(() => service.stop());

  it('builds the real container from config and answers with a generated key', async () => {
    expect(service.generatedApiKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const response = await fetch(`${service.url}/v1/pets`, {
      headers: { Authorization: `Bearer ${service.generatedApiKey}` },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('[]');
  });

  it('refuses to start in production without API keys', async () => {
    const config = loadConfig({ APP_ENV: 'production', STORAGE: 'memory', PORT: '0' });
    await expect(startService(config)).rejects.toThrowError(ConfigError);
    await expect(startService(config)).rejects.toThrowError(/API_KEYS/);
  });
});
