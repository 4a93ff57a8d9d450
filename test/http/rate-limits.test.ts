import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { clockAtWindowStart } from '../support/fake-clock.js';
import { sha256Hex } from '../../src/adapters/keys/hashed-api-key-verifier.js';
import { captureLogs } from '../support/log-capture.js';
import { TEST_API_KEY } from '../support/test-config.js';

const OTHER_KEY = 'another-key-for-rate-limits-0123456789abcdef';

describe('rate limits', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  const get = (apiKey: string) =>
    server!.request('GET', '/v1/pets', { headers: { Authorization: `Bearer ${apiKey}` } });

  it('reports the quota once 90% of it is used, and answers 429 rate_limited once it is spent', async () => {
    server = await startTestServer({ apiKeys: [TEST_API_KEY, OTHER_KEY], rateLimitPerMinute: 20 }, { clock: clockAtWindowStart() });
    for (let used = 1; used <= 20; used++) {
      const response = await get(TEST_API_KEY);
      expect(response.status).toBe(200);
      if (used < 18) {
        expect(response.headers.get('ratelimit'), `request ${used}`).toBeNull();
        continue;
      }
      expect(response.headers.get('ratelimit-policy')).toBe('"per-key";q=20;w=60');
      expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"per-key";r=${20 - used};t=\\d+$`));
    }
    const limited = await get(TEST_API_KEY);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ code: 'rate_limited', message: expect.stringContaining('retry'), status: 429n });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-policy')).toBe('"per-key";q=20;w=60');
    expect(limited.headers.get('ratelimit')).toMatch(/^"per-key";r=0;t=\d+$/);
  });

  it('counts each API key separately', async () => {
    server = await startTestServer({ apiKeys: [TEST_API_KEY, OTHER_KEY], rateLimitPerMinute: 2 }, { clock: clockAtWindowStart() });
    await get(TEST_API_KEY);
    await get(TEST_API_KEY);
    expect((await get(TEST_API_KEY)).status).toBe(429);
    expect((await get(OTHER_KEY)).status).toBe(200);
  });

  it('refuses an address that failed authentication too often, even with a right key', async () => {
    server = await startTestServer({ rateLimitPerMinute: 1000, authFailuresPerMinute: 3 }, { clock: clockAtWindowStart() });
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await get(`wrong-key-${attempt}`)).status).toBe(401);
    }
    const blocked = await get('wrong-key-again');
    expect(blocked.status).toBe(429);
    expect(blocked.json).toMatchObject({ code: 'rate_limited', status: 429n });
    expect(blocked.headers.get('ratelimit-policy')).toBe('"auth-failures";q=3;w=60');
    const evenRight = await get(TEST_API_KEY);
    expect(evenRight.status).toBe(429);
  });

  it('does not count requests without any key as guesses', async () => {
    server = await startTestServer({ rateLimitPerMinute: 1000, authFailuresPerMinute: 2 }, { clock: clockAtWindowStart() });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await server.request('GET', '/v1/pets', { anonymous: true })).status).toBe(401);
    }
    expect((await get(TEST_API_KEY)).status).toBe(200);
  });

  it('logs each 429 with the key id it throttled, and counts refusals by limit in /metrics', async () => {
    const logs = await captureLogs();
    server = await startTestServer({ rateLimitPerMinute: 2, authFailuresPerMinute: 1 }, { clock: clockAtWindowStart(), logger: logs.logger });
    const throttled = ['limited-1', 'limited-2', 'limited-3'];
    for (const [n, requestId] of ['ok-1', 'ok-2', ...throttled].entries()) {
      const response = await server.request('GET', '/v1/pets', { headers: { 'X-Request-Id': requestId } });
      expect(response.status, requestId).toBe(n < 2 ? 200 : 429);
    }
    const keyId = `key_${sha256Hex(TEST_API_KEY).slice(0, 12)}`;
    const lines = logs.entries().filter((entry) => throttled.includes(entry.requestId as string));
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatchObject({ msg: 'request', status: 429, apiKeyId: keyId, route: '/v1/pets' });
    // One wrong key fills the failure window; the next attempt from the address is refused by that limit.
    expect((await server.request('GET', '/v1/pets', { headers: { Authorization: 'Bearer wrong-key' } })).status).toBe(401);
    expect((await server.request('GET', '/v1/pets', { headers: { Authorization: 'Bearer wrong-key' } })).status).toBe(429);
    const metrics = (await server.request('GET', '/metrics', { anonymous: true })).text;
    expect(metrics).toContain('animal_store_rate_limit_refusals_total{limit="per-key"} 3');
    expect(metrics).toContain('animal_store_rate_limit_refusals_total{limit="auth-failures"} 1');
  });

  it('turns every limit off with RATE_LIMIT_PER_MINUTE=0', async () => {
    server = await startTestServer({ rateLimitPerMinute: 0, authFailuresPerMinute: 1 }, { clock: clockAtWindowStart() });
    for (let attempt = 0; attempt < 5; attempt++) expect((await get(`bad-${attempt}`)).status).toBe(401);
    const response = await get(TEST_API_KEY);
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit')).toBeNull();
  });
});
