import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';
import { rawExchange as sendRaw } from '../support/raw-exchange.js';
import { TEST_API_KEY } from '../support/test-config.js';

interface RawExchange {
  /** Everything the server sent before closing. */
  readonly received: string;
  /** Milliseconds from connecting until the server closed the connection. */
  readonly closedAfterMs: number;
}

/** The raw exchange, timed from connecting until the server closed the connection. */
async function rawExchange(url: string, chunks: readonly string[], pauseMs: number): Promise<RawExchange> {
  const started = performance.now();
  const received = await sendRaw(url, chunks, pauseMs);
  return { received, closedAfterMs: performance.now() - started };
}

describe('server limits', () => {
  const server = useTestServer({ headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200, maxHeaderBytes: 4096 });

  it('answers 431 to headers larger than the limit', async () => {
    const response = await fetch(`${server.url}/v1/pets`, {
      headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'X-Padding': 'a'.repeat(5000) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ code: 'headers_too_large', message: expect.any(String), status: 431 });
  });

  it('answers bytes that are not HTTP with a JSON 400 malformed_request and closes', async () => {
    const exchange = await rawExchange(server.url, ['NOT HTTP AT ALL\r\n\r\n'], 0);
    expect(exchange.received).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(exchange.received).toMatch(/\r\nConnection: close\r\n/);
    const body = JSON.parse(exchange.received.slice(exchange.received.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({ code: 'malformed_request', message: 'The request is not valid HTTP.', status: 400 });
  });

  it('serves headers just under the limit', async () => {
    const response = await server.request('GET', '/v1/pets', { headers: { 'X-Padding': 'a'.repeat(3000) } });
    expect(response.status).toBe(200);
  });

  it('cuts off a client that trickles its headers (slow loris) with 408', async () => {
    const trickle = ['GET /v1/pets HTTP/1.1\r\n', 'Host: x\r\n', ...Array.from({ length: 20 }, (_, i) => `X-Slow-${i}: y\r\n`)];
    const exchange = await rawExchange(server.url, trickle, 100);
    expect(exchange.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(exchange.received).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(exchange.received).toMatch(/"code":"request_timeout","message":"[^"]+","status":408\}$/);
    expect(exchange.closedAfterMs).toBeLessThan(1500);
  });

  it('cuts off a client that trickles its body past the request timeout', async () => {
    const head =
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 40\r\n\r\n';
    const exchange = await rawExchange(server.url, [head, ...'{"name":"Slow","categoryId":1}'.split('')], 100);
    expect(exchange.received).not.toMatch(/^HTTP\/1\.1 201 /);
    expect(exchange.closedAfterMs).toBeLessThan(2000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const request = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    const exchange = await rawExchange(server.url, [request], 0);
    expect(exchange.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(exchange.received).toMatch(/Keep-Alive: timeout=0\b/i);
    // Node keeps its socket a second longer than it announces, so clients close first; the default would be 5 s.
    expect(exchange.closedAfterMs).toBeLessThan(3000);
  });
});

describe('response headers', () => {
  const server = useTestServer();

  it.each([
    ['GET', '/v1/pets', false],
    ['GET', '/v1/pets', true],
    ['GET', '/healthz', true],
    ['GET', '/metrics', true],
    ['GET', '/v1/openapi.json', true],
    ['GET', '/nowhere', true],
  ] as const)('has no X-Powered-By or Server on %s %s (anonymous: %s)', async (method, path, anonymous) => {
    const response = await server.request(method, path, { anonymous });
    expect(response.headers.has('x-powered-by')).toBe(false);
    expect(response.headers.has('server')).toBe(false);
  });
});
