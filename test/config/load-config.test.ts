import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('gives local development defaults when APP_ENV is unset', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ appEnv: 'local', port: 3000, storage: 'memory', apiKeys: [] });
    expect(config.baseUrl.endsWith('/v1')).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each(['production', 'staging'] as const)('reads config/%s.json with a base address ending in /v1', (appEnv) => {
    const config = loadConfig({ APP_ENV: appEnv });
    expect(config.appEnv).toBe(appEnv);
    expect(new URL(config.baseUrl).pathname).toBe('/v1');
    expect(config.servers[appEnv]).toBe(config.baseUrl);
  });

  it('lets environment variables override the file', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      API_KEYS: ' one, sha256:' + 'a'.repeat(64) + ' ,,',
      MONGODB_URL: 'mongodb://db.internal:27017',
      MONGODB_DB: 'pets',
      STORAGE: 'memory',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      apiKeys: ['one', `sha256:${'a'.repeat(64)}`],
      mongodb: { url: 'mongodb://db.internal:27017', db: 'pets' },
    });
  });

  it.each([
    [{ APP_ENV: 'qa' }, 'APP_ENV'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ STORAGE: 'redis' }, 'STORAGE'],
    [{ MONGODB_URL: 'http://nope' }, 'MONGODB_URL'],
    [{ MONGODB_DB: 'bad name!' }, 'MONGODB_DB'],
  ])('stops with one line naming the setting for %j', (env, setting) => {
    expect(() => loadConfig(env)).toThrowError(ConfigError);
    expect(() => loadConfig(env)).toThrowError(new RegExp(`^Invalid setting ${setting}: `));
  });
});
