import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fire } from '../../bench/src/load.js';

// The bench's peak client (bench/load.ts) against a real listening node:http server: it must count exactly.
describe('the closed-loop load client', () => {
  let server: Server | undefined;

  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('sends exactly `amount` requests, each a fresh one from the source, with the headers every server gets', async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers.authorization} ${body}`);
        res.writeHead(201, { 'content-type': 'application/json' }).end(body);
      });
    });
    let n = 0;
    const result = await fire({ url, apiKey: 'k', connections: 4, amount: 10, source: () => ({ method: 'POST', path: '/v1/pets', body: `{"n":${n++}}` }) });
    expect(result).toMatchObject({ requests: 10, errors: 0, non2xx: 0 });
    expect(seen.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `POST /v1/pets Bearer k {"n":${i}}`).sort());
  });

  it('keeps `connections` requests in flight at once, no more', async () => {
    let inFlight = 0;
    let most = 0;
    const url = await serve((_req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.end('[]');
      }, 5);
    });
    const result = await fire({ url, apiKey: 'k', connections: 3, duration: 0.3, source: { method: 'GET', path: '/v1/pets' } });
    expect(most).toBe(3);
    expect(result.requests).toBeGreaterThan(3);
    expect(result.p99).toBeGreaterThanOrEqual(5);
  });

  it('counts non-2xx answers, and errors on connections the server closes, and still finishes', async () => {
    let n = 0;
    const url = await serve((_req, res) => {
      n++;
      if (n % 3 === 0) res.socket?.destroy();
      else res.writeHead(n % 3 === 1 ? 200 : 404).end('x');
    });
    const result = await fire({ url, apiKey: 'k', connections: 2, amount: 30, source: { method: 'GET', path: '/v1/pets' } });
    expect(n).toBe(30);
    expect(result).toMatchObject({ requests: 20, errors: 10, non2xx: 10 });
  });
});
