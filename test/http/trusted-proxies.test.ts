import { afterEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config/config.js';
import { clockAtWindowStart } from '../support/fake-clock.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { captureLogs } from '../support/log-capture.js';

/*
 * Issue 11, R2: failed authentications are limited per client address. Behind a load balancer that address
 * comes from X-Forwarded-For, believed only past the proxies listed in TRUSTED_PROXIES (off by default).
 * Every test client connects from 127.0.0.1.
 */
const FAILURES_ALLOWED = 3;
const WRONG_KEY = 'Bearer wrong-key-0000000000000000';

describe('the client address behind proxies', () => {
  let server: TestServer | undefined;
  afterEach(() => server?.stop());

  async function start(overrides: Partial<AppConfig>, logger?: Awaited<ReturnType<typeof captureLogs>>['logger']): Promise<TestServer> {
    server = await startTestServer(
      { rateLimitPerMinute: 10_000, authFailuresPerMinute: FAILURES_ALLOWED, ...overrides },
      { clock: clockAtWindowStart(), ...(logger === undefined ? {} : { logger }) },
    );
    return server;
  }

  /** Spends the failed-authentication quota of whoever sends this X-Forwarded-For. */
  async function lockOut(target: TestServer, forwardedFor: string): Promise<void> {
    for (let i = 0; i < FAILURES_ALLOWED; i++) {
      const response = await target.request('GET', '/v1/pets', { headers: { Authorization: WRONG_KEY, 'X-Forwarded-For': forwardedFor } });
      expect(response.status).toBe(401);
    }
    const blocked = await target.request('GET', '/v1/pets', { headers: { 'X-Forwarded-For': forwardedFor } });
    expect(blocked.status).toBe(429);
  }

  const get = (target: TestServer, forwardedFor: string) =>
    target.request('GET', '/v1/pets', { headers: { 'X-Forwarded-For': forwardedFor } });

  it('ignores X-Forwarded-For by default: every client on 127.0.0.1 shares one limit, spoofed headers or not', async () => {
    const target = await start({});
    await lockOut(target, '203.0.113.1');
    expect((await get(target, '203.0.113.2')).status).toBe(429);
    expect((await target.request('GET', '/v1/pets')).status).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not a listed proxy', async () => {
    const target = await start({ trustedProxies: ['10.0.0.0/8'] });
    await lockOut(target, '203.0.113.1');
    expect((await get(target, '203.0.113.2')).status).toBe(429);
  });

  it('limits two forwarded clients separately behind a trusted proxy, and logs the client address', async () => {
    const logs = await captureLogs();
    const target = await start({ trustedProxies: ['127.0.0.1'], logLevel: 'info' }, logs.logger);
    await lockOut(target, '203.0.113.1');
    const other = await target.request('GET', '/v1/pets', { headers: { 'X-Forwarded-For': '203.0.113.2', 'X-Request-Id': 'xff-other' } });
    expect(other.status).toBe(200);
    expect(logs.entries().find((entry) => entry.requestId === 'xff-other')).toMatchObject({ clientAddress: '203.0.113.2', status: 200 });
    expect((await get(target, '203.0.113.1')).status).toBe(429);
  });

  it('cannot be escaped by prepending fake entries: the address the trusted proxy appended decides', async () => {
    const target = await start({ trustedProxies: ['127.0.0.1'] });
    await lockOut(target, '203.0.113.1');
    expect((await get(target, '198.51.100.7, 203.0.113.1')).status).toBe(429);
    expect((await get(target, 'garbage, 203.0.113.1')).status).toBe(429);
  });

  it('walks past every trusted hop, right to left, to the first untrusted address', async () => {
    const target = await start({ trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });
    await lockOut(target, '203.0.113.1, 10.1.2.3, 10.4.5.6');
    expect((await get(target, '203.0.113.1')).status).toBe(429);
    expect((await get(target, '10.9.9.9, 203.0.113.9, 10.1.2.3')).status).toBe(200);
  });
});
