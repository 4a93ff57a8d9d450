import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { rawExchange } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';

// Issue 11, D1: Koa's ctx.query was quadratic; 8,000 parameters cost about 0.9 s of CPU before the 400.
const HOSTILE_QUERY = Array.from({ length: 8000 }, () => 'a').join('&');
const AUTH = { Authorization: `Bearer ${TEST_API_KEY}` };

async function timedGet(url: string): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: AUTH });
  const body = (await response.json()) as unknown;
  return { status: response.status, body, ms: performance.now() - started };
}

/** One hostile request on its own connection, over a raw socket so the client itself costs next to nothing. */
const rawHostileRequest = (url: string) =>
  rawExchange(url, [`GET /v1/pets?${HOSTILE_QUERY} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nConnection: close\r\n\r\n`]);

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

describe('query limits', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  // CPU time, not wall time: on a shared machine a preempted process waits without spending anything.
  // The service runs in this process and the raw-socket client costs next to nothing, so this is its cost.
  it('answers 8,000 parameters (16 KB) with 400 validation_failed for well under 20 ms of CPU each', async () => {
    const answer = await timedGet(`${server.url}/v1/pets?${HOSTILE_QUERY}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ code: 'validation_failed', message: 'query: at most 1024 characters are accepted.', status: 400 });
    const requests = 20;
    const before = process.cpuUsage();
    for (let i = 0; i < requests; i++) expect(await rawHostileRequest(server.url)).toMatch(/^HTTP\/1\.1 400 /);
    const spent = process.cpuUsage(before);
    expect((spent.user + spent.system) / 1000 / requests).toBeLessThan(20);
  });

  it('answers more than 16 parameters in a short target with 400 validation_failed', async () => {
    const answer = await timedGet(`${server.url}/v1/pets?${Array.from({ length: 17 }, () => 'a').join('&')}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'validation_failed', message: 'query: at most 16 parameters are accepted.' });
  });

  it.each([
    ['an unknown parameter', 'a', 'unknown query parameter: a'],
    ['a repeated parameter', 'limit=1&limit=2', 'limit'],
    ['a repeated unknown parameter', 'a&a&a', 'unknown query parameter: a'],
  ])('still answers %s with 400 validation_failed', async (_, query, message) => {
    const response = await server.request('GET', `/v1/pets?${query}`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ code: 'validation_failed', message: expect.stringContaining(message) });
  });

  it('reads escapes, + and empty values as querystring.parse does', async () => {
    const response = await server.request('GET', '/v1/pets?limit=%32&status=available&');
    expect(response.status).toBe(200);
    const spaced = await server.request('GET', '/v1/pets?status=av+ailable');
    expect(spaced.json).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('status') });
  });

  // On MongoDB a normal GET also waits on the test database server (an emulator, by default), so there the
  // bound would measure that server: the p99 is asserted on memory storage, the hostile requests on both.
  // The machine running the suite is shared, so the bound is 20 ms above the p99 of the same GETs without
  // the attack, in blocks that alternate with and without it so that both see the same neighbours. The
  // attack is the issue's, paced faster: before the fix each hostile request alone stalled the service ~0.5 s.
  it('keeps a normal GET under 20 ms p99 while 8,000-parameter requests arrive on two connections, 10/s each', async () => {
    const times = { quiet: [] as number[], attacked: [] as number[] };
    let attacking = false;
    let done = false;
    const attacker = async () => {
      while (!done) {
        if (attacking) expect(await rawHostileRequest(server.url)).toMatch(/^HTTP\/1\.1 400 /);
        await new Promise((resolve) => setTimeout(resolve, attacking ? 100 : 10));
      }
    };
    const attackers = [attacker(), attacker()];
    for (let block = 0; block < 20; block++) {
      attacking = block % 2 === 1;
      for (let i = 0; i < 20; i++) {
        const answer = await timedGet(`${server.url}/v1/pets?limit=20`);
        expect(answer.status).toBe(200);
        (attacking ? times.attacked : times.quiet).push(answer.ms);
      }
    }
    done = true;
    await Promise.all(attackers);
    if (inject('storage') === 'memory') expect(percentile(times.attacked, 0.99)).toBeLessThan(percentile(times.quiet, 0.99) + 20);
  });
});
