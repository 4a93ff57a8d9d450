import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/http-harness.js';
import { TEST_API_KEY } from '../support/test-config.js';

const ALLOWED = 'https://app.animal-store.example';
const OTHER = 'https://evil.example';

const preflight = (url: string, origin: string) =>
  fetch(`${url}/v1/pets`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' },
  });

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

describe('CORS, off by default', () => {
  const server = useTestServer();

  it('adds no Access-Control-* header to /v1 responses, even with an Origin', async () => {
    const response = await server.request('GET', '/v1/pets', { headers: { Origin: ALLOWED } });
    expect(response.status).toBe(200);
    expect(corsHeaders(response.headers)).toEqual([]);
  });

  it('does not special-case preflights: without a key they are refused like any request', async () => {
    const response = await preflight(server.url, ALLOWED);
    expect(response.status).toBe(401);
    expect(corsHeaders(response.headers)).toEqual([]);
  });

  it('keeps the OpenAPI document readable from any origin', async () => {
    const response = await server.request('GET', '/v1/openapi.json', { anonymous: true, headers: { Origin: OTHER } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('CORS with an allow-list', () => {
  const server = useTestServer({ corsOrigins: [ALLOWED, 'http://localhost:5173'] });

  it('answers a preflight from an allowed origin with 204, before authentication', async () => {
    const response = await preflight(server.url, ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, X-Request-Id');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    expect(response.headers.has('access-control-allow-credentials')).toBe(false);
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
    expect(await response.text()).toBe('');
  });

  it('passes a preflight from another origin on, so it gets no CORS headers', async () => {
    const response = await preflight(server.url, OTHER);
    expect(response.status).toBe(401);
    expect(corsHeaders(response.headers)).toEqual([]);
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('lets an allowed origin read responses and the headers that carry the contract', async () => {
    const created = await server.createPet('{"name":"Rex","categoryId":1}');
    expect(created.status).toBe(201);
    const response = await server.request('GET', '/v1/pets', { headers: { Origin: ALLOWED } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('vary')).toBe('Origin');
    expect(response.headers.get('access-control-expose-headers')).toBe(
      'Location, Link, X-Request-Id, traceresponse, Deprecation, Sunset, Retry-After, WWW-Authenticate, RateLimit, RateLimit-Policy, Idempotent-Replayed',
    );
  });

  it('lets an allowed origin read error responses too', async () => {
    const response = await server.request('GET', '/v1/pets', { anonymous: true, headers: { Origin: 'http://localhost:5173' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
  });

  it('matches origins exactly', async () => {
    for (const origin of [`${ALLOWED}/`, 'https://APP.animal-store.example', `${ALLOWED}:443`, 'null', `${ALLOWED}.evil.example`]) {
      const response = await server.request('GET', '/v1/pets', { headers: { Origin: origin } });
      expect(response.headers.has('access-control-allow-origin'), origin).toBe(false);
    }
  });

  it('still requires the key on actual requests from an allowed origin', async () => {
    const response = await fetch(`${server.url}/v1/pets`, { headers: { Origin: ALLOWED } });
    expect(response.status).toBe(401);
    const ok = await fetch(`${server.url}/v1/pets`, { headers: { Origin: ALLOWED, Authorization: `Bearer ${TEST_API_KEY}` } });
    expect(ok.status).toBe(200);
  });

  it('keeps * on the OpenAPI document for every origin', async () => {
    const response = await server.request('GET', '/v1/openapi.json', { anonymous: true, headers: { Origin: ALLOWED } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});
