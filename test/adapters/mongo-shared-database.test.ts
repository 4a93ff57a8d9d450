import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AppConfig } from '../../src/config/config.js';
import { clockAtWindowStart, FakeClock } from '../support/fake-clock.js';
import { startTestServer, type TestResponse, type TestServer } from '../support/http-harness.js';
import { freshMongoSettings } from '../support/mongo-test-db.js';
import { EXCHANGE_EVERY_MS } from '../../src/adapters/mongo/mongo-rate-limiter.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const DAY = 24 * 3_600_000;

/** Two service instances on one database, as two replicas behind a load balancer would be. */
async function startTwoInstances(overrides: Partial<AppConfig>, clock?: FakeClock): Promise<[TestServer, TestServer]> {
  const shared = { storage: 'mongodb' as const, mongodb: freshMongoSettings('shared-http'), ...overrides };
  const options = clock === undefined ? {} : { clock };
  return [await startTestServer(shared, options), await startTestServer(shared, options)];
}

const post = (server: TestServer, key: string, body: string): Promise<TestResponse> =>
  server.request('POST', '/v1/pets', { headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body });

function report(what: string, figure: string): void {
  process.stderr.write(`[shared-db] ${what}: ${figure} (${inject('mongoKind')})\n`);
}

describe('Idempotency-Key across two instances on one database', () => {
  const clock = new FakeClock(Date.UTC(2030, 0, 1));
  let a: TestServer;
  let b: TestServer;

  const storedNames = async () => {
    const response = await a.request('GET', '/v1/pets?limit=100');
    return (response.json as { name: string }[]).map((pet) => pet.name);
  };

  beforeAll(async () => {
    [a, b] = await startTwoInstances({}, clock);
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
  });

  it('replays on instance B the response instance A gave', async () => {
    const first = await post(a, 'cross-1', '{"name":"Rex","categoryId":1}');
    const retry = await post(b, 'cross-1', '{"categoryId":1,"name":"Rex"}');
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await post(b, 'cross-1', '{"name":"Other","categoryId":1}')).status).toBe(422);
  });

  it('creates exactly one pet for 50 concurrent same-key requests spread over both instances', async () => {
    const started = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post(i % 2 === 0 ? a : b, 'burst', '{"name":"Burst","categoryId":5}')),
    );
    const ms = Math.round(performance.now() - started);
    const replays = responses.filter((response) => response.headers.get('idempotent-replayed') === 'true');
    report('50 same-key POSTs over 2 instances', `${replays.length} replays, ${ms} ms`);
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    expect(replays).toHaveLength(49);
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    expect((await storedNames()).filter((name) => name === 'Burst')).toHaveLength(1);
  });

  it('forgets a key after its time to live on either instance, so another body creates (fake clock)', async () => {
    const first = await post(a, 'expiring', '{"name":"Old","categoryId":1}');
    clock.advance(DAY - 1000);
    expect((await post(b, 'expiring', '{"name":"Old","categoryId":1}')).text).toBe(first.text);
    clock.advance(2000);
    const later = await post(b, 'expiring', '{"name":"New","categoryId":1}');
    expect(later.status).toBe(201);
    expect(later.text).not.toBe(first.text);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect((await post(a, 'expiring', '{"name":"New","categoryId":1}')).text).toBe(later.text);
    // The key now names the new pet on either instance: the first body is another request.
    expect((await post(a, 'expiring', '{"name":"Old","categoryId":1}')).status).toBe(422);
  });
});

describe('rate limits across two instances on one database', () => {
  let servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  // Instances exchange counts every EXCHANGE_EVERY_MS in the background: the limit holds across them once
  // both have exchanged, which is the tolerance docs/api.md states (Rate limits).
  const afterExchange = () => new Promise((resolve) => setTimeout(resolve, 2 * EXCHANGE_EVERY_MS + 200));

  it('counts one key on both instances: 3 requests on A and 3 on B make the 6th 429 (quota 5)', async () => {
    const [a, b] = await startTwoInstances({ rateLimitPerMinute: 5 }, clockAtWindowStart());
    servers.push(a, b);
    const statuses: number[] = [];
    for (const server of [a, a, a, b, b, b]) {
      if (server === b) await afterExchange();
      statuses.push((await server.request('GET', '/v1/pets')).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await a.request('GET', '/v1/pets')).headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
  });

  it('counts failed authentications from one address on both instances', async () => {
    const [a, b] = await startTwoInstances({ rateLimitPerMinute: 1000, authFailuresPerMinute: 3 }, clockAtWindowStart());
    servers.push(a, b);
    const wrong = (server: TestServer, n: number) => server.request('GET', '/v1/pets', { headers: { Authorization: `Bearer wrong-${n}` } });
    const statuses: number[] = [];
    for (const [server, n] of [[a, 1], [b, 2], [a, 3], [b, 4]] as const) {
      await afterExchange();
      statuses.push((await wrong(server, n)).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('Idempotency-Key while MongoDB is down', () => {
  const TIMEOUT_MS = 1500;
  let proxy: TcpProxy;
  let server: TestServer;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    const settings = freshMongoSettings('idem-outage', { url: proxy.url, timeoutMs: TIMEOUT_MS });
    server = await startTestServer({ storage: 'mongodb', mongodb: settings, rateLimitPerMinute: 100 });
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  it('answers 503 storage_unavailable (never 500) and keeps the key usable once MongoDB is back', async () => {
    expect((await post(server, 'before', '{"name":"Before","categoryId":1}')).status).toBe(201);
    await proxy.down();
    for (const round of ['first', 'second']) {
      const started = performance.now();
      const response = await post(server, 'during', '{"name":"During","categoryId":1}');
      const ms = Math.round(performance.now() - started);
      report(`${round} idempotent POST while down (rate limits on)`, `${response.status} in ${ms} ms`);
      expect(response.status).toBe(503);
      expect(response.json).toEqual({ code: 'storage_unavailable', message: 'Storage is temporarily unavailable. Retry later.', status: 503n });
      expect(response.headers.get('retry-after')).toBe('5');
      // The limiter gives up after 500 ms and counts in memory; storage then waits its own timeout.
      expect(ms).toBeLessThan(500 + TIMEOUT_MS + 1500);
    }
    await proxy.up();
    const back = performance.now();
    let after = await post(server, 'during', '{"name":"During","categoryId":1}');
    while (after.status === 503 && performance.now() - back < 5000) after = await post(server, 'during', '{"name":"During","categoryId":1}');
    expect(after.status).toBe(201);
    expect((await post(server, 'during', '{"name":"During","categoryId":1}')).headers.get('idempotent-replayed')).toBe('true');
  });
});
