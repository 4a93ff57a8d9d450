import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clockAtWindowStart } from '../support/fake-clock.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';

const JSON_BODY = { 'Content-Type': 'application/json' };

describe('the log at LOG_LEVEL=debug', () => {
  let logs: CapturedLogs;
  let server: TestServer;

  beforeAll(async () => {
    logs = await captureLogs('debug');
    server = await startTestServer({ logLevel: 'debug', rateLimitPerMinute: 10 }, { logger: logs.logger, clock: clockAtWindowStart() });
  });
  afterAll(() => server.stop());

  const debugLines = (msg: string) => logs.entries().filter((entry) => entry.level === 20 && entry.msg === msg);
  const create = (requestId: string, key?: string) =>
    server.request('POST', '/v1/pets', {
      headers: { ...JSON_BODY, 'X-Request-Id': requestId, ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
      body: '{"name":"Rex","categoryId":1}',
    });

  it('states the start-up decisions, without the MongoDB URL', () => {
    const storage = inject('storage');
    const decisions = logs.entries().filter((entry) => String(entry.msg).startsWith('start-up: '));
    expect(decisions.length).toBeGreaterThanOrEqual(6);
    for (const line of decisions) expect(line.level).toBe(20);
    expect(logs.entries().find((entry) => entry.storage !== undefined)).toMatchObject({ level: 20, storage });
    expect(logs.entries().find((entry) => entry.apiKeys !== undefined)).toMatchObject({ apiKeys: 'configured', count: 1 });
    expect(logs.entries().find((entry) => entry.tracing !== undefined)).toMatchObject({ tracing: false });
    expect(logs.entries().find((entry) => entry.trustedProxies !== undefined)).toMatchObject({ msg: 'start-up: X-Forwarded-For ignored (no TRUSTED_PROXIES)' });
    expect(logs.text()).not.toContain('mongodb://');
  });

  it('logs a create\'s storage operation with its duration and outcome', async () => {
    const created = await create('debug-create');
    expect(created.status).toBe(201);
    const petId = String((created.json as { id: bigint }).id);
    const stored = debugLines('storage operation').filter((entry) => entry.operation === 'add');
    expect(stored).toEqual([expect.objectContaining({ outcome: 'stored', petId, durationMs: expect.any(Number) })]);
    expect(stored[0]!.durationMs as number).toBeGreaterThanOrEqual(0);
  });

  it('logs a keyed replay with the request and the pet it answers, and the store saying so', async () => {
    const first = await create('debug-first', 'debug-key-1');
    const replay = await create('debug-replay', 'debug-key-1');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const petId = String((first.json as { id: bigint }).id);
    expect(debugLines('idempotent replay')).toEqual([expect.objectContaining({ requestId: 'debug-replay', petId })]);
    const outcomes = debugLines('storage operation').filter((entry) => entry.operation === 'addOnce').map((entry) => [entry.outcome, entry.petId]);
    expect(outcomes).toEqual([['stored', petId], ['replayed', petId]]);
    expect(logs.text()).not.toContain('debug-key-1');
  });

  it('logs a refused request with the limit that refused it', async () => {
    // The key's quota is 10 a minute, and the clock stands still: the 10th request of the test key at the latest is refused.
    let refused = 0;
    for (let sent = 1; refused === 0 && sent <= 10; sent++) {
      const answer = await server.request('GET', '/v1/pets', { headers: { 'X-Request-Id': `debug-limited-${sent}` } });
      if (answer.status === 429) refused = sent;
    }
    expect(refused).toBeGreaterThan(0);
    expect(debugLines('rate limited')).toEqual([
      expect.objectContaining({ requestId: `debug-limited-${refused}`, limit: 'per-key', quota: 10, windowSeconds: 60, retryAfterSeconds: expect.any(Number) }),
    ]);
    const requestLine = logs.entries().find((entry) => entry.requestId === `debug-limited-${refused}` && entry.msg === 'request');
    expect(requestLine).toMatchObject({ level: 30, status: 429, code: 'rate_limited' });
  });

  it('logs probes and scrapes at debug', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect((await server.request('GET', path, { headers: { 'X-Request-Id': `debug-quiet-${path.slice(1)}` } })).status).toBe(200);
    }
    const quiet = logs.entries().filter((entry) => String(entry.requestId).startsWith('debug-quiet'));
    expect(quiet.map((entry) => [entry.route, entry.level, entry.status])).toEqual([
      ['/healthz', 20, 200],
      ['/readyz', 20, 200],
      ['/metrics', 20, 200],
    ]);
    // The scrape counted the stored pets: a storage operation of its own.
    expect(debugLines('storage operation').map((entry) => entry.operation)).toContain('count');
  });
});

describe('the log at LOG_LEVEL=debug, storage misses and failures', () => {
  let logs: CapturedLogs;
  let server: TestServer;

  beforeAll(async () => {
    logs = await captureLogs('debug');
    server = await startTestServer({ logLevel: 'debug' }, { logger: logs.logger });
  });
  afterAll(() => server.stop());

  const storageLines = (operation: string) => logs.entries().filter((entry) => entry.msg === 'storage operation' && entry.operation === operation);

  it('logs a lookup that finds nothing as not_found', async () => {
    expect((await server.request('GET', '/v1/pets/9000000000000000000')).status).toBe(404);
    expect(storageLines('findById')).toEqual([expect.objectContaining({ outcome: 'not_found', petId: '9000000000000000000' })]);
  });

  it("logs a store's refusal as failed, with the domain error's code", async () => {
    const post = (body: string) =>
      server.request('POST', '/v1/pets', { headers: { ...JSON_BODY, 'Idempotency-Key': 'debug-reused' }, body });
    expect((await post('{"name":"Rex","categoryId":1}')).status).toBe(201);
    expect((await post('{"name":"Max","categoryId":1}')).status).toBe(422);
    expect(storageLines('addOnce').map((entry) => [entry.outcome, entry.errorCode])).toEqual([
      ['stored', undefined],
      ['failed', 'idempotency_key_reused'],
    ]);
  });

  it('logs a list with how many pets it read', async () => {
    expect((await server.request('GET', '/v1/pets?limit=5')).status).toBe(200);
    expect(storageLines('list')).toEqual([expect.objectContaining({ outcome: 'listed', pets: 1, durationMs: expect.any(Number) })]);
  });
});

describe('the metrics port at LOG_LEVEL=debug', () => {
  it('logs its scrapes at debug, where at info it logs nothing', async () => {
    for (const level of ['debug', 'info'] as const) {
      const logs = await captureLogs(level);
      const server = await startTestServer({ logLevel: level, metricsPort: 0 }, { logger: logs.logger });
      try {
        const response = await fetch(`${server.service.metricsUrl}/metrics`, { headers: { 'X-Request-Id': 'debug-scrape' } });
        expect(response.status).toBe(200);
      } finally {
        await server.stop();
      }
      const scrapes = logs.entries().filter((entry) => entry.requestId === 'debug-scrape');
      expect(scrapes.map((entry) => [entry.level, entry.route])).toEqual(level === 'debug' ? [[20, '/metrics']] : []);
    }
  });
});
