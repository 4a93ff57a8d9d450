import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InMemoryRateLimiter } from '../src/adapters/memory/in-memory-rate-limiter.js';
import { ConfigError, type AppConfig } from '../src/config/config.js';
import { loadConfig } from '../src/config/load-config.js';
import { startService, type RunningService } from '../src/server/start-service.js';

// No load balancer routes to these: stop() need not wait for one to notice.
const NO_GRACE = { SHUTDOWN_GRACE_MS: '0' };

describe('the composition root', () => {
  let service: RunningService;

  beforeAll(async () => {
    service = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', ...NO_GRACE }));
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

  it('lists the serving environment first in the served document, then the configured production and staging', async () => {
    const config = loadConfig({});
    const document = (await (await fetch(`${service.url}/v1/openapi.json`)).json()) as { servers: { url: string; description: string }[] };
    expect(document.servers).toEqual([
      { url: '/v1', description: `The service serving this document (${config.appEnv})` },
      { url: config.servers.production, description: 'Production' },
      { url: config.servers.staging, description: 'Staging' },
    ]);
  });

  it('refuses a storage name the table does not register, naming the ones it does', async () => {
    const config = { ...loadConfig({ PORT: '0' }), storage: 'redis' } as unknown as AppConfig;
    await expect(startService(config)).rejects.toThrowError(/^Invalid setting STORAGE: must be one of memory, mongodb \(got "redis"\)$/);
  });

  it.each(['production', 'staging'] as const)('refuses to start in %s without API keys, naming the setting', async (appEnv) => {
    const config = loadConfig({ APP_ENV: appEnv, STORAGE: 'memory', PORT: '0' });
    await expect(startService(config)).rejects.toThrowError(ConfigError);
    await expect(startService(config)).rejects.toThrowError(new RegExp(`^Invalid setting API_KEYS: ${appEnv} needs at least one key`));
  });

  it('starts in staging with a configured key and generates none', async () => {
    const config = loadConfig({ APP_ENV: 'staging', STORAGE: 'memory', PORT: '0', HOST: '127.0.0.1', API_KEYS: 'staging-key', ...NO_GRACE });
    const staging = await startService(config);
    try {
      expect(staging.generatedApiKey).toBeUndefined();
      const response = await fetch(`${staging.url}/v1/pets`, { headers: { Authorization: 'Bearer staging-key' } });
      expect(response.status).toBe(200);
    } finally {
      await staging.stop();
    }
  });
});

describe('stopping the composed service', () => {
  it('stops the background work of both rate limits, once HTTP has stopped', async () => {
    const running = await startService(loadConfig({ PORT: '0', HOST: '127.0.0.1', ...NO_GRACE }));
    const closed: string[] = [];
    const observe = (prototype: { close(): Promise<void> }, name: string) => {
      const close = prototype.close;
      vi.spyOn(prototype, 'close').mockImplementation(function (this: unknown) {
        closed.push(`${name} (listening: ${running.server.listening})`);
        return close.call(this);
      });
    };
    observe(InMemoryRateLimiter.prototype, 'rate limiter');
    try {
      expect(await running.stop()).toMatchObject({ forced: false });
    } finally {
      vi.restoreAllMocks();
    }
    expect(closed.sort()).toEqual([
      'rate limiter (listening: false)',
      'rate limiter (listening: false)',
    ]);
  });
});
