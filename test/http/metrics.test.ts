import { beforeAll, describe, expect, it } from 'vitest';
import { HttpMetrics } from '../../src/adapters/http/http-metrics.js';
import { startTestServer, useTestServer } from '../support/http-harness.js';

describe('GET /metrics on the API port (the default)', () => {
  const server = useTestServer();
  let text: string;

  beforeAll(async () => {
    await server.createPet('{"name":"Rex","categoryId":1}');
    await server.createPet('{"name":"Tom","categoryId":2,"status":"sold"}');
    await server.request('GET', '/v1/pets/1');
    await server.request('GET', '/v1/pets', { anonymous: true });
    await server.request('GET', '/not/a/route');
    const response = await server.request('GET', '/metrics', { anonymous: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    text = response.text;
  });

  it('counts requests by method, route template and status', () => {
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain('http_requests_total{method="POST",route="/v1/pets",status="201"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="/v1/pets/:petId",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/v1/pets",status="401"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
    expect(text).not.toContain('/v1/pets/1"');
  });

  it('has a latency histogram with the same labels', () => {
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/v1\/pets",status="201"\} 2/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/v1\/pets",status="201"\} 2/);
  });

  it('reports the stored animals and the process metrics', () => {
    expect(text).toMatch(/^animal_store_pets 2$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('needs no key and is listed in the operations document, which needs no security', async () => {
    const doc = JSON.parse((await server.request('GET', '/openapi-operations.json', { anonymous: true })).text);
    expect(doc.security).toEqual([]);
    expect(doc.paths['/metrics'].get.responses['200'].content['text/plain']).toBeDefined();
  });
});

describe('metrics settings', () => {
  it('METRICS=off: no /metrics route and none in the document', async () => {
    const server = await startTestServer({ metrics: 'off' });
    try {
      expect((await server.request('GET', '/metrics', { anonymous: true })).status).toBe(404);
      const doc = JSON.parse((await server.request('GET', '/openapi-operations.json', { anonymous: true })).text);
      expect(doc.paths['/metrics']).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it('METRICS_PORT: served on its own listener, not on the API port', async () => {
    const server = await startTestServer({ metricsPort: 0 });
    try {
      expect(server.service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.service.metricsUrl).not.toBe(server.url);
      await server.request('GET', '/v1/pets');
      expect((await server.request('GET', '/metrics', { anonymous: true })).status).toBe(404);
      const response = await fetch(`${server.service.metricsUrl}/metrics`);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('http_requests_total{method="GET",route="/v1/pets",status="200"} 1');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const other = await fetch(`${server.service.metricsUrl}/v1/pets`);
      expect(other.status).toBe(404);
      expect(((await other.json()) as { code: string }).code).toBe('not_found');
      const doc = JSON.parse((await server.request('GET', '/openapi-operations.json', { anonymous: true })).text);
      expect(doc.paths['/metrics']).toBeUndefined();
    } finally {
      await server.stop();
    }
    await expect(fetch(`${server.service.metricsUrl}/metrics`)).rejects.toThrow();
  });
});

describe('HttpMetrics', () => {
  it('keeps a registry per instance, so two apps in one process do not collide', async () => {
    const a = new HttpMetrics(async () => 1);
    const b = new HttpMetrics(async () => 2);
    a.observeRequest('GET', '/healthz', 200, 0.001);
    expect(await a.render()).toContain('http_requests_total{method="GET",route="/healthz",status="200"} 1');
    expect(await b.render()).not.toContain('route="/healthz"');
    expect(await b.render()).toMatch(/^animal_store_pets 2$/m);
  });

  it('reads NaN for the stored animals when storage fails, and still renders the rest', async () => {
    const metrics = new HttpMetrics(() => Promise.reject(new Error('storage down')));
    const text = await metrics.render();
    // prom-client writes "Nan"; Prometheus parses NaN case-insensitively.
    expect(text).toMatch(/^animal_store_pets nan$/im);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});
