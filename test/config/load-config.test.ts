import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/config/load-config.js';
import { STORAGE_NAMES } from '../../src/storage-backends.js';

describe('loadConfig', () => {
  it('gives local development defaults when APP_ENV is unset', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ appEnv: 'local', port: 3000, storage: 'memory', apiKeys: [] });
    expect(config.mongodb.timeoutMs).toBe(2500);
    expect(config.baseUrl.endsWith('/v1')).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each(['production', 'staging'] as const)('reads config/%s.json with a base address ending in /v1', (appEnv) => {
    const config = loadConfig({ APP_ENV: appEnv });
    expect(config.appEnv).toBe(appEnv);
    expect(new URL(config.baseUrl).pathname).toBe('/v1');
    expect(config.servers[appEnv]).toBe(config.baseUrl);
  });

  it.each(['production', 'staging'] as const)('puts %s on MongoDB with majority writes and reads', (appEnv) => {
    expect(loadConfig({ APP_ENV: appEnv })).toMatchObject({
      storage: 'mongodb',
      mongodb: { writeConcern: 'majority', readConcern: 'majority' },
    });
  });

  it('reads the write and read concern from the environment', () => {
    expect(loadConfig({ MONGODB_WRITE_CONCERN: '2', MONGODB_READ_CONCERN: 'local' }).mongodb).toMatchObject({
      writeConcern: 2,
      readConcern: 'local',
    });
    expect(loadConfig({ MONGODB_WRITE_CONCERN: 'majority' }).mongodb.writeConcern).toBe('majority');
    expect(loadConfig({}).mongodb).toMatchObject({ writeConcern: 'majority', readConcern: 'majority' });
  });

  it('lets environment variables override the file', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      API_KEYS: ' one, sha256:' + 'a'.repeat(64) + ' ,,',
      MONGODB_URL: 'mongodb://db.internal:27017',
      MONGODB_DB: 'pets',
      MONGODB_TIMEOUT_MS: '1500',
      STORAGE: 'memory',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      apiKeys: ['one', `sha256:${'a'.repeat(64)}`],
      mongodb: { url: 'mongodb://db.internal:27017', db: 'pets', timeoutMs: 1500 },
    });
  });

  it.each([
    [{ APP_ENV: 'qa' }, 'APP_ENV'],
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ STORAGE: 'redis' }, 'STORAGE'],
    [{ MONGODB_URL: 'http://nope' }, 'MONGODB_URL'],
    [{ MONGODB_DB: 'bad name!' }, 'MONGODB_DB'],
    [{ MONGODB_TIMEOUT_MS: '2s' }, 'MONGODB_TIMEOUT_MS'],
    [{ MONGODB_TIMEOUT_MS: '10' }, 'MONGODB_TIMEOUT_MS'],
    [{ MONGODB_WRITE_CONCERN: '0' }, 'MONGODB_WRITE_CONCERN'],
    [{ MONGODB_WRITE_CONCERN: 'all' }, 'MONGODB_WRITE_CONCERN'],
    [{ MONGODB_READ_CONCERN: 'snapshot' }, 'MONGODB_READ_CONCERN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT'],
    [{ METRICS: 'yes' }, 'METRICS'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT'],
    [{ METRICS_PORT: 'nine' }, 'METRICS_PORT'],
    [{ SHUTDOWN_TIMEOUT_MS: '0' }, 'SHUTDOWN_TIMEOUT_MS'],
    [{ SHUTDOWN_GRACE_MS: '-1' }, 'SHUTDOWN_GRACE_MS'],
    [{ SHUTDOWN_GRACE_MS: '0.5' }, 'SHUTDOWN_GRACE_MS'],
    [{ SHUTDOWN_GRACE_MS: '10000' }, 'SHUTDOWN_GRACE_MS'],
    [{ SHUTDOWN_GRACE_MS: '3000', SHUTDOWN_TIMEOUT_MS: '2000' }, 'SHUTDOWN_GRACE_MS'],
    [{ HTTP_MAX_HEADER_BYTES: '100' }, 'HTTP_MAX_HEADER_BYTES'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: '1.5' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS'],
    [{ CORS_ORIGINS: 'https://app.example/' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: '*' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://ok.example,app.example' }, 'CORS_ORIGINS'],
  ])('stops with one line naming the setting for %j', (env, setting) => {
    expect(() => loadConfig(env)).toThrowError(ConfigError);
    expect(() => loadConfig(env)).toThrowError(new RegExp(`^Invalid setting ${setting}: `));
  });

  it('stops naming every registered backend for an unknown STORAGE', () => {
    expect(() => loadConfig({ STORAGE: 'redis' })).toThrowError(
      new ConfigError(`Invalid setting STORAGE: must be one of ${STORAGE_NAMES.join(', ')} (got "redis")`),
    );
    expect(STORAGE_NAMES).toEqual(expect.arrayContaining(['memory', 'mongodb']));
  });

  it("validates every backend's section whichever STORAGE picks, and freezes it", () => {
    const config = loadConfig({ STORAGE: 'memory', MONGODB_TIMEOUT_MS: '900' });
    expect(config.mongodb).toMatchObject({ timeoutMs: 900, db: 'animal_store_local' });
    expect(Object.isFrozen(config.mongodb)).toBe(true);
    expect(() => loadConfig({ STORAGE: 'memory', MONGODB_DB: 'a b' })).toThrowError(/^Invalid setting MONGODB_DB: /);
  });

  it('has the operational defaults: info logs, metrics on the API port, 5 s grace within a 10 s shutdown, bounded HTTP, CORS off', () => {
    expect(loadConfig({})).toMatchObject({
      logLevel: 'info',
      metrics: 'on',
      shutdownTimeoutMs: 10_000,
      shutdownGraceMs: 5_000,
      maxHeaderBytes: 16_384,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      corsOrigins: [],
    });
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ APP_ENV: 'production' }).metricsPort).toBe(9464);
  });

  it('reads the operational settings from the environment', () => {
    const config = loadConfig({
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      METRICS: 'off',
      METRICS_PORT: '9100',
      SHUTDOWN_TIMEOUT_MS: '2500',
      SHUTDOWN_GRACE_MS: '0',
      HTTP_MAX_HEADER_BYTES: '8192',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_REQUEST_TIMEOUT_MS: '20000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      CORS_ORIGINS: 'https://app.example, http://localhost:5173',
    });
    expect(config).toMatchObject({
      logLevel: 'debug',
      logFormat: 'pretty',
      metrics: 'off',
      metricsPort: 9100,
      shutdownTimeoutMs: 2500,
      shutdownGraceMs: 0,
      maxHeaderBytes: 8192,
      headersTimeoutMs: 5000,
      requestTimeoutMs: 20_000,
      keepAliveTimeoutMs: 65_000,
      corsOrigins: ['https://app.example', 'http://localhost:5173'],
    });
  });

  it('treats an empty METRICS_PORT as unset', () => {
    expect(loadConfig({ METRICS_PORT: '' }).metricsPort).toBeUndefined();
  });
});
