import type { AppConfig } from '../../src/config/config.js';

export const TEST_API_KEY = 'test-key-0123456789abcdefghijklmnopqrstuvwxyz';

/** A complete config for tests, on memory storage and an ephemeral port. */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    appEnv: 'local',
    baseUrl: 'http://localhost:3000/v1',
    servers: { production: 'https://api.animal-store.example/v1', staging: 'https://staging.api.animal-store.example/v1' },
    port: 0,
    host: '127.0.0.1',
    storage: 'memory',
    mongodb: { url: 'mongodb://127.0.0.1:27017', db: 'animal_store_test', timeoutMs: 2500, writeConcern: 'majority', readConcern: 'majority' },
    apiKeys: [TEST_API_KEY],
    idempotencyTtlMs: 24 * 3600 * 1000,
    // Suites send thousands of requests from one address; the rate-limit tests turn limits on explicitly.
    rateLimitPerMinute: 0,
    authFailuresPerMinute: 30,
    logLevel: 'silent',
    logFormat: 'json',
    metrics: 'on',
    shutdownTimeoutMs: 10_000,
    // No load balancer routes to a test server: stop() drains at once.
    shutdownGraceMs: 0,
    maxHeaderBytes: 16 * 1024,
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    corsOrigins: [],
    tracing: false,
    ...overrides,
  };
}
