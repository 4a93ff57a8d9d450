import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS, RequestTallies } from '../../src/adapters/http/request-tallies.js';

// The tallies replace a prom-client Counter and Histogram on the hot path: scraped, they must read the same.
function promClientPair(registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const counter = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by method, route template and status.', labelNames, registers: [registry] });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its response being ready, by method, route template and status.',
    labelNames,
    buckets: [...DURATION_BUCKETS],
    registers: [registry],
  });
  return (method: string, route: string, status: number, seconds: number | undefined) => {
    const labels = { method, route, status: String(status) };
    counter.inc(labels);
    if (seconds !== undefined) histogram.observe(labels, seconds);
  };
}

describe('RequestTallies', () => {
  it('renders exactly what a prom-client Counter and Histogram fed the same responses render', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const tallies = new RequestTallies(ours);
    const reference = promClientPair(theirs);
    const observations: [string, string, number, number | undefined][] = [
      ['GET', '/v1/pets', 200, 0.0004],
      ['GET', '/v1/pets', 200, 0.001], // on a bound: counted in that bucket
      ['GET', '/v1/pets', 200, 0.0123],
      ['POST', '/v1/pets', 201, 3.2],
      ['POST', '/v1/pets', 201, 12], // past the largest bound: +Inf only
      ['GET', '/v1/pets/:petId', 404, 0.05],
      ['unknown', 'unmatched', 408, undefined], // counted, not timed: no histogram series
      ['GET', 'unmatched', 404, undefined],
      ['GET', 'unmatched', 404, 0.002],
    ];
    for (const [method, route, status, seconds] of observations) {
      tallies.observe(method, route, status, seconds);
      reference(method, route, status, seconds);
    }
    const rendered = await ours.metrics();
    expect(rendered).toBe(await theirs.metrics());
    expect(rendered).toContain('http_requests_total{method="unknown",route="unmatched",status="408"} 1');
    expect(rendered).not.toContain('http_request_duration_seconds_count{method="unknown"');
    expect(rendered).toContain('http_request_duration_seconds_bucket{le="0.001",method="GET",route="/v1/pets",status="200"} 2');
    expect(rendered).toContain('http_request_duration_seconds_bucket{le="10",method="POST",route="/v1/pets",status="201"} 1');
    expect(rendered).toContain('http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/v1/pets",status="201"} 2');
  });

  it('renders nothing but the headers before the first response', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    new RequestTallies(ours);
    promClientPair(theirs);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
