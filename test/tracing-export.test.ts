import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptCommand } from '../bench/src/servers.js';
import { startBlackHoleCollector, type BlackHoleCollector } from './support/black-hole-collector.js';
import { portOf, ROOT, spawnService, type ServiceProcess } from './support/service-process.js';
import { TEST_API_KEY } from './support/test-config.js';

/*
 * The built service started as npm start starts it (the --import preload), beside an OTLP/HTTP receiver of the
 * test's own, configured by the standard OTEL_* variables only.
 */

interface Received {
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

let receiver: Server;
let endpoint: string;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      response.writeHead(200, { 'Content-Type': request.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** npm start's command, run by this Node. */
function startCommand(preloads: readonly string[] = []): string[] {
  const [, ...flags] = startScriptCommand(join(ROOT, 'package.json'));
  return [process.execPath, ...preloads.flatMap((preload) => ['--import', preload]), ...flags];
}

async function started(env: Record<string, string>, preloads?: readonly string[]): Promise<{ service: ServiceProcess; url: string }> {
  const service = spawnService({ command: startCommand(preloads), env: { SHUTDOWN_GRACE_MS: '0', ...env } });
  return { service, url: `http://127.0.0.1:${portOf(await service.logged('listening'))}` };
}

async function listPets(url: string): Promise<Response> {
  const response = await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${TEST_API_KEY}` } });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response;
}

async function stopped(service: ServiceProcess): Promise<void> {
  service.process.kill('SIGTERM');
  expect(await service.exited).toBe(0);
  await service.closed;
}

const traceIdOf = (response: Response) => /^00-([0-9a-f]{32})-/.exec(response.headers.get('traceresponse') ?? '')?.[1];

interface OtlpJsonSpan {
  readonly traceId: string;
  readonly name: string;
}
interface OtlpJson {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes: readonly { readonly key: string; readonly value: { readonly stringValue?: string } }[] };
    readonly scopeSpans: readonly { readonly spans: readonly OtlpJsonSpan[] }[];
  }[];
}

/** A service exporting OTLP http/json to the receiver, which forgets what it got before. */
function startedExportingJson(env: Record<string, string>): ReturnType<typeof started> {
  received.length = 0;
  return started({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...env });
}

/** What the receiver got on /v1/traces, read as OTLP http/json. */
function receivedJson() {
  const exports = received.filter((request) => request.path === '/v1/traces');
  const resources = exports.flatMap((request) => (JSON.parse(request.body.toString('utf8')) as OtlpJson).resourceSpans);
  const spans = resources.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans));
  return { contentTypes: exports.map((request) => request.contentType), resources, spans };
}

describe('traces exported over OTLP/HTTP', () => {
  it('sends a request’s spans as http/json with the resource the variables name, flushed at SIGTERM', async () => {
    const { service, url } = await startedExportingJson({
      OTEL_SERVICE_NAME: 'animal-store-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=ci',
      // Nothing leaves on the batch schedule: only the shutdown's flush can deliver the spans.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    expect((await service.logged('listening')).tracing).toBe(true);
    const traceId = traceIdOf(await listPets(url));
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(received).toEqual([]);
    await stopped(service);

    const { contentTypes, resources, spans } = receivedJson();
    expect(contentTypes).toEqual(contentTypes.map(() => 'application/json'));
    expect(spans.filter((span) => span.traceId === traceId).map((span) => span.name)).toEqual(
      expect.arrayContaining(['GET /v1/pets', 'listPets', 'PetCatalog.listPets']),
    );
    const attributes = Object.fromEntries(resources[0]!.resource.attributes.map(({ key, value }) => [key, value.stringValue]));
    expect(attributes).toMatchObject({ 'service.name': 'animal-store-test', 'deployment.environment.name': 'ci' });
    // The request line, written through the batching destination, names the same trace.
    expect(service.lines().find((line) => line.msg === 'request')).toMatchObject({ trace_id: traceId, route: '/v1/pets' });
  });

  it('sends http/protobuf by default, to the traces endpoint as given', async () => {
    received.length = 0;
    const { service, url } = await started({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/collector/traces` });
    const traceId = traceIdOf(await listPets(url))!;
    await stopped(service);
    const exports = received.filter((request) => request.path === '/collector/traces');
    expect(exports.map((request) => request.contentType)).toContain('application/x-protobuf');
    // Protobuf keeps bytes and strings as they are: the trace id's 16 bytes and the span's name are in the body.
    const body = Buffer.concat(exports.map((request) => request.body));
    expect(body.includes(Buffer.from(traceId, 'hex'))).toBe(true);
    expect(body.includes(Buffer.from('GET /v1/pets'))).toBe(true);
  });

  it('samples as OTEL_TRACES_SAMPLER says: a new trace dropped at ratio 0, a sampled caller’s trace kept', async () => {
    const { service, url } = await startedExportingJson({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    // A dropped request names no trace: no backend holds one to quote.
    const dropped = await listPets(url);
    expect(dropped.status).toBe(200);
    expect(dropped.headers.get('traceresponse')).toBeNull();
    const caller = '0af7651916cd43dd8448eb211c80319c';
    const kept = await fetch(`${url}/v1/pets`, {
      headers: { Authorization: `Bearer ${TEST_API_KEY}`, traceparent: `00-${caller}-b7ad6b7169203331-01` },
    });
    expect(kept.headers.get('traceresponse')).toMatch(new RegExp(`^00-${caller}-[0-9a-f]{16}-01$`));
    await kept.arrayBuffer();
    await stopped(service);

    const { spans } = receivedJson();
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([caller]));
    expect(spans.map((span) => span.name)).toEqual(expect.arrayContaining(['GET /v1/pets', 'listPets', 'PetCatalog.listPets']));
  });

  it('loads nothing of OpenTelemetry without the variables, and sends no traceresponse', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'imports-'));
    const record = join(dir, 'imports.txt');
    try {
      const { service, url } = await started({ RECORD_IMPORTS_TO: record }, ['./test/support/record-imports.mjs']);
      expect((await service.logged('listening')).tracing).toBe(false);
      expect((await listPets(url)).headers.get('traceresponse')).toBeNull();
      await stopped(service);
      const modules = readFileSync(record, 'utf8').split('\n');
      // The record is complete enough to see the service's own packages, ES and CommonJS.
      expect(modules.some((module) => module.includes('/node_modules/koa/'))).toBe(true);
      expect(modules.some((module) => module.includes('/node_modules/mongodb/') || module.includes('/node_modules/pino/'))).toBe(true);
      // The API package alone was there before tracing: prom-client requires it (for exemplars); it records nothing.
      expect(modules.filter((module) => /@opentelemetry\/(?!api\/)|import-in-the-middle|require-in-the-middle/.test(module))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a trace collector that accepts connections and never answers', () => {
  let collector: BlackHoleCollector;
  beforeAll(async () => (collector = await startBlackHoleCollector()));
  afterAll(() => collector.stop());

  it('holds the shutdown up no longer than SHUTDOWN_TIMEOUT_MS, and the stopped line gives the real duration', async () => {
    const { service, url } = await started({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      // Spans wait for the shutdown's flush; the exporter's own timeout (10 s) is far past the budget.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      SHUTDOWN_TIMEOUT_MS: '1500',
    });
    await listPets(url);
    const connected = collector.connections();
    const signalled = performance.now();
    service.process.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    const elapsed = performance.now() - signalled;
    expect(collector.connections()).toBeGreaterThan(connected);
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(1500 + 1000);
    await service.closed;
    expect(await service.logged('spans not exported at shutdown: SHUTDOWN_TIMEOUT_MS reached')).toMatchObject({ level: 40 });
    const { durationMs } = await service.logged('stopped');
    expect(durationMs).toBeGreaterThanOrEqual(1490);
    expect(durationMs).toBeLessThanOrEqual(elapsed);
  });

  it('logs failed exports while running in one line, not one per batch', async () => {
    const { service, url } = await started({
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_EXPORTER_OTLP_TIMEOUT: '200',
      SHUTDOWN_TIMEOUT_MS: '1000',
    });
    // One batch is exported at a time: a third connection means the first two exports have failed.
    const before = collector.connections();
    while (collector.connections() < before + 3) {
      await listPets(url);
      await sleep(100);
    }
    service.process.kill('SIGTERM');
    await service.closed;
    const failures = service.lines().filter((line) => line.msg === 'trace export failed: spans dropped');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ level: 40, failures: 1, err: { message: expect.any(String) } });
    // The export's timer started within a sampled request; the failure is not that request's.
    expect(failures[0]).not.toHaveProperty('trace_id');
  });
});
