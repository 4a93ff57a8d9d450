import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';
import { rawExchange } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';

/*
 * Issue 11, D4: every response the service sends, whichever layer sends it, is logged once and counted once
 * with the status on the wire, including the answers Node's parser and timeouts give before the app sees a request.
 */

const requestIdOf = (response: string) => /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(response)?.[1];

describe('answers the server gives on its own', () => {
  let logs: CapturedLogs;
  let server: TestServer;

  beforeAll(async () => {
    logs = await captureLogs();
    server = await startTestServer(
      { logLevel: 'info', headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200, maxHeaderBytes: 4096 },
      { logger: logs.logger },
    );
  });
  afterAll(() => server.stop());

  /** The value of http_requests_total for these labels (0 when the series does not exist yet). */
  async function requestsTotal(method: string, route: string, status: number): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`http_requests_total{method="${method}",route="${route}",status="${status}"}`));
    return line === undefined ? 0 : Number(line.split(' ').at(-1));
  }

  /** Every request line logged for this id, after the app had time to finish anything it was still doing. */
  async function linesFor(requestId: string | undefined): Promise<Record<string, unknown>[]> {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return logs.entries().filter((entry) => entry.msg === 'request' && entry.requestId === requestId);
  }

  it('logs and counts a body cut by the request timeout once, as the 408 it was answered with', async () => {
    const before = { timeout: await requestsTotal('POST', '/v1/pets', 408), bad: await requestsTotal('POST', '/v1/pets', 400) };
    const head =
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nX-Request-Id: slow-body-1\r\n` +
      'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n';
    const received = await rawExchange(server.url, [head, ...'{"name":"Slow","categoryId":1}'.split('')], 100);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(requestIdOf(received)).toBe('slow-body-1');
    const lines = await linesFor('slow-body-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'POST', route: '/v1/pets', status: 408, code: 'request_timeout', apiKeyId: expect.stringMatching(/^key_/) });
    expect(await requestsTotal('POST', '/v1/pets', 408)).toBe(before.timeout + 1);
    expect(await requestsTotal('POST', '/v1/pets', 400)).toBe(before.bad);
  });

  it.each([
    ['a slow-loris head', ['GET /v1/pets HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 20 }, (_, i) => `X-Slow-${i}: y\r\n`)], 100, 408, 'request_timeout'],
    ['oversized headers', [`GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(5000)}\r\n\r\n`], 0, 431, 'headers_too_large'],
    ['bytes that are not HTTP', ['NOT HTTP AT ALL\r\n\r\n'], 0, 400, 'malformed_request'],
  ] as const)('logs and counts %s once with its status and code', async (_, chunks, pauseMs, status, code) => {
    const before = await requestsTotal('unknown', 'unmatched', status);
    const received = await rawExchange(server.url, chunks, pauseMs);
    expect(received).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    const lines = await linesFor(requestIdOf(received));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, method: null, route: null, status, code, durationMs: null, apiKeyId: null });
    expect(await requestsTotal('unknown', 'unmatched', status)).toBe(before + 1);
  });
});
