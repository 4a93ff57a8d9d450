import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/*
 * The built exporter (its worker is a file of dist/), against an OTLP/HTTP receiver of the test's own: what leaves
 * the worker is what the SDK's exporter sends from the thread that made the spans.
 */
type Modules = typeof import('../../src/telemetry/worker-span-exporter.js') & typeof import('../../src/telemetry/span-processors-from-env.js');
const dist = (file: string) => fileURLToPath(new URL(`../../dist/telemetry/${file}`, import.meta.url));
const { WorkerSpanExporter, spanProcessorsFromEnv }: Modules = {
  ...(await import(dist('worker-span-exporter.js'))),
  ...(await import(dist('span-processors-from-env.js'))),
};

const bodies = new Map<string, unknown[]>();
let receiver: Server;
let base: string;
beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.set(request.url!, [...(bodies.get(request.url!) ?? []), JSON.parse(Buffer.concat(chunks).toString('utf8'))]);
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
afterEach(() => vi.unstubAllEnvs());

/** Finished spans with every part a span can have: a remote parent with trace state, a link, an event, an error status. */
function finishedSpans(): ReadableSpan[] {
  const finished = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'worker-test', 'service.version': '1.2.3' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: finished })],
  });
  const tracer = provider.getTracer('worker-test-scope', '0.1.0');
  const caller = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, isRemote: true };
  const parent = trace.setSpanContext(ROOT_CONTEXT, { ...caller, traceState: createTraceState('vendor=a1,other=b2') });
  const linked = { ...caller, spanId: '00f067aa0ba902b7', traceState: createTraceState('linked=c3') };
  const server = tracer.startSpan('GET /v1/pets', { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', ids: [1, 2, 3] } }, parent);
  const child = tracer.startSpan('PetCatalog.listPets', { links: [{ context: linked, attributes: { why: 'batch' } }] }, trace.setSpan(parent, server));
  child.addEvent('retried', { attempt: 2, final: true });
  child.setStatus({ code: SpanStatusCode.ERROR, message: 'storage unavailable' });
  child.end();
  server.end();
  return finished.getFinishedSpans();
}

const exported = (exporter: SpanExporter, spans: ReadableSpan[]) => new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

function exportingJsonTo(path: string): void {
  vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${base}${path}`);
  vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http/json');
}

describe('WorkerSpanExporter', () => {
  it('sends from its worker the body the SDK’s exporter sends from this thread: ids, trace state, links, events, status, resource, scope', async () => {
    const spans = finishedSpans();
    expect(await exported(new JsonExporter({ url: `${base}/here` }), spans)).toEqual({ code: ExportResultCode.SUCCESS });
    exportingJsonTo('/worker');
    const exporter = new WorkerSpanExporter('otlp');
    expect(await exported(exporter, spans)).toEqual({ code: ExportResultCode.SUCCESS });
    await exporter.shutdown();

    expect(bodies.get('/worker')).toEqual(bodies.get('/here'));
    const [sent] = bodies.get('/worker') as [{ resourceSpans: { scopeSpans: { spans: { traceState: string; links: { traceState: string }[] }[] }[] }[] }];
    const [server, child] = [...sent.resourceSpans[0]!.scopeSpans[0]!.spans].reverse();
    expect([server!.traceState, child!.links[0]!.traceState]).toEqual(['vendor=a1,other=b2', 'linked=c3']);
  });

  it('answers a failed export with the exporter’s error, and goes on exporting', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'http://127.0.0.1:1/v1/traces');
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', '500');
    const exporter = new WorkerSpanExporter('otlp');
    const results = [await exported(exporter, finishedSpans()), await exported(exporter, finishedSpans())];
    await exporter.shutdown();
    expect(results).toEqual([0, 1].map(() => ({ code: ExportResultCode.FAILED, error: expect.objectContaining({ message: expect.stringMatching(/ECONNREFUSED/) }) })));
  });

  it('fails a batch that cannot cross to its worker, and exports the next', async () => {
    exportingJsonTo('/after-clone-error');
    const exporter = new WorkerSpanExporter('otlp');
    const [span] = finishedSpans();
    // The SDK keeps only primitives and their arrays in attributes; a function gets this far only by mistake.
    const uncloneable = Object.create(span!, { attributes: { value: { callback: () => 0 } } }) as ReadableSpan;
    expect(await exported(exporter, [uncloneable])).toEqual({
      code: ExportResultCode.FAILED,
      error: expect.objectContaining({ name: 'DataCloneError' }),
    });
    expect(await exported(exporter, finishedSpans())).toEqual({ code: ExportResultCode.SUCCESS });
    await exporter.shutdown();
    expect(bodies.get('/after-clone-error')).toHaveLength(1);
  });

  it('ends only when its worker has sent the batch it was given before', async () => {
    exportingJsonTo('/last');
    const exporter = new WorkerSpanExporter('otlp');
    const result = exported(exporter, finishedSpans());
    await exporter.shutdown();
    expect(bodies.get('/last')).toHaveLength(1);
    expect(await result).toEqual({ code: ExportResultCode.SUCCESS });
  });

  it('runs the Zipkin exporter for `zipkin`, to OTEL_EXPORTER_ZIPKIN_ENDPOINT', async () => {
    vi.stubEnv('OTEL_EXPORTER_ZIPKIN_ENDPOINT', `${base}/zipkin`);
    const exporter = new WorkerSpanExporter('zipkin');
    expect(await exported(exporter, finishedSpans())).toEqual({ code: ExportResultCode.SUCCESS });
    await exporter.shutdown();
    const [sent] = bodies.get('/zipkin') as [{ name: string; localEndpoint: { serviceName: string } }[]];
    expect(sent.map((span) => [span.name, span.localEndpoint.serviceName])).toEqual([
      ['PetCatalog.listPets', 'worker-test'],
      ['GET /v1/pets', 'worker-test'],
    ]);
  });
});

describe('spanProcessorsFromEnv', () => {
  it.each([
    [undefined, ['BatchSpanProcessor']],
    ['otlp', ['BatchSpanProcessor']],
    ['console', ['SimpleSpanProcessor']],
    ['otlp,console,otlp', ['BatchSpanProcessor', 'SimpleSpanProcessor']],
    ['zipkin', ['BatchSpanProcessor']],
    ['none', []],
    ['console,none', ['BatchSpanProcessor']],
    ['no_such_exporter', []],
  ])('OTEL_TRACES_EXPORTER=%s: %j, as the Node SDK chooses', async (names, expected) => {
    vi.stubEnv('OTEL_TRACES_EXPORTER', names);
    const processors = spanProcessorsFromEnv();
    await Promise.all(processors.map((processor) => processor.shutdown()));
    expect(processors.map((processor) => processor.constructor.name)).toEqual(expected);
  });

  it('hands a batch processor’s spans to the worker on the OTEL_BSP_SCHEDULE_DELAY schedule', async () => {
    exportingJsonTo('/scheduled');
    vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '50');
    const [processor] = spanProcessorsFromEnv() as [BatchSpanProcessor];
    for (const span of finishedSpans()) processor.onEnd(span);
    await vi.waitFor(() => expect(bodies.get('/scheduled')).toHaveLength(1), { timeout: 5000 });
    await processor.shutdown();
  });
});
