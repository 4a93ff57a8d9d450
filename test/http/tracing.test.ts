import { Agent, get } from 'node:http';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshDbName } from '../support/mongo-server.js';
import { portOf, spawnService, type ServiceProcess } from '../support/service-process.js';
import { TEST_API_KEY } from '../support/test-config.js';

/*
 * Issue 31, point 2 to 4, and issue 42: the spans of a request, as the SDK's in-memory exporter holds them in the
 * built service (test/support/traced-service.mjs: started as the --import preload starts it, so the instrumentations
 * patch the driver and pino as they load; the service starts the server span itself), on this project's storage.
 */

interface Span {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly traceState?: string;
  readonly parent?: { readonly traceId: string; readonly spanId: string; readonly isRemote?: boolean };
  readonly attributes: Record<string, unknown>;
  readonly status: { readonly code: SpanStatusCode };
  readonly events: readonly { readonly name: string; readonly attributes?: Record<string, unknown> }[];
  readonly resource: Record<string, unknown>;
}

const TRACE_RESPONSE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
/** A name no span attribute may carry: pets' names are the customers' data. */
const SECRET_NAME = 'Wilhelmina Secretpaws';

const storage = inject('storage');
let service: ServiceProcess;
let url: string;

beforeAll(async () => {
  const mongo: Record<string, string> =
    storage === 'mongodb' ? { STORAGE: 'mongodb', MONGODB_URL: inject('mongoUrl'), MONGODB_DB: freshDbName('tracing') } : {};
  service = spawnService({ command: [process.execPath, 'test/support/traced-service.mjs'], env: { ...mongo, HOME: process.env.HOME ?? '/', SHUTDOWN_GRACE_MS: '0' }, ipc: true });
  url = `http://127.0.0.1:${portOf(await service.logged('listening'))}`;
});
afterAll(async () => {
  service.process.kill('SIGTERM');
  await service.closed;
});

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Response> {
  const response = await fetch(`${url}${path}`, { method, headers: { Authorization: `Bearer ${TEST_API_KEY}`, ...headers }, body });
  await response.arrayBuffer();
  return response;
}

/** The request line logged for `requestId`; lines leave in batches (BatchedLines) at most 100 ms apart. */
async function requestLine(requestId: string): Promise<Record<string, unknown> | undefined> {
  for (let waited = 0; waited < 3000; waited += 20) {
    const line = service.lines().find((entry) => entry.requestId === requestId && entry.msg === 'request');
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/** The trace fields of a log line (trace-log-fields.ts). */
function traceFieldsOf(line: Record<string, unknown> | undefined): Record<string, unknown> {
  expect(line, 'a request line').toBeDefined();
  return Object.fromEntries(Object.entries(line!).filter(([key]) => ['trace_id', 'span_id', 'trace_flags'].includes(key)));
}

/**
 * A GET through `agent`, answering the trace its traceresponse names (none when unrecorded) and the local port of the
 * connection it went over.
 */
function callOn(agent: Agent, path: string, headers: Record<string, string>): Promise<{ traceId: string | undefined; socket: number }> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}${path}`, { agent, headers: { Authorization: `Bearer ${TEST_API_KEY}`, ...headers } }, (response) => {
      response.resume();
      response.on('end', () => {
        expect(response.statusCode).toBe(200);
        const traceId = TRACE_RESPONSE.exec(String(response.headers.traceresponse))?.[1];
        resolve({ traceId, socket: request.socket!.localPort! });
      });
    });
    request.on('error', reject);
  });
}

function traceIdOf(response: Response): string {
  const match = TRACE_RESPONSE.exec(response.headers.get('traceresponse') ?? '');
  expect(match, 'a traceresponse header').not.toBeNull();
  return match![1]!;
}

function finishedSpans(): Promise<Span[]> {
  const child = service.process;
  return new Promise((resolve) => {
    child.once('message', (spans) => resolve(spans as Span[]));
    child.send('spans');
  });
}

/** The spans of a trace, once its server span has ended (as the response finishes, maybe after the client read it). */
async function spansOf(traceId: string): Promise<Span[]> {
  for (let tries = 0; ; tries++) {
    const spans = (await finishedSpans()).filter((span) => span.traceId === traceId);
    if (spans.some((span) => span.kind === SpanKind.SERVER)) return spans;
    if (tries > 100) throw new Error(`no server span in trace ${traceId}: ${spans.map((span) => span.name).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The names from the root down to `span`. */
function pathTo(span: Span, spans: readonly Span[]): string[] {
  const parent = spans.find((candidate) => candidate.spanId === span.parent?.spanId);
  return parent === undefined ? [span.name] : [...pathTo(parent, spans), span.name];
}

function only(spans: readonly Span[], name: string): Span {
  const found = spans.filter((span) => span.name === name);
  expect(found.map((span) => span.name), `one span ${name} among ${spans.map((span) => span.name).join(', ')}`).toEqual([name]);
  return found[0]!;
}

describe(`traces of the built service (${storage} storage)`, () => {
  it('gives a create then a get each a server span named by its route, the operation beneath, the use case below it', async () => {
    const created = await call(
      'POST',
      '/v1/pets',
      { 'Content-Type': 'application/json', 'User-Agent': 'tracing-test/1.0' },
      `{"name":"${SECRET_NAME}","categoryId":3}`,
    );
    expect(created.status).toBe(201);
    const create = await spansOf(traceIdOf(created));
    const post = only(create, 'POST /v1/pets');
    expect(post.kind).toBe(SpanKind.SERVER);
    expect(post.parent).toBeUndefined();
    expect(post.attributes).toEqual({
      'http.route': '/v1/pets',
      'http.request.method': 'POST',
      'http.response.status_code': 201,
      'url.path': '/v1/pets',
      'url.scheme': 'http',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(url).port),
      'client.address': '127.0.0.1',
      'user_agent.original': 'tracing-test/1.0',
      'network.protocol.version': '1.1',
    });
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    expect(pathTo(only(create, 'PetCatalog.addPet'), create)).toEqual(['POST /v1/pets', 'createPet', 'PetCatalog.addPet']);
    expect(only(create, 'createPet')).toMatchObject({ kind: SpanKind.INTERNAL, attributes: { 'http.route': '/v1/pets' } });

    const got = await call('GET', created.headers.get('location')!);
    expect(got.status).toBe(200);
    expect(traceIdOf(got)).not.toBe(traceIdOf(created));
    const get = await spansOf(traceIdOf(got));
    expect(only(get, 'GET /v1/pets/:petId').attributes).toMatchObject({ 'http.route': '/v1/pets/:petId', 'http.response.status_code': 200 });
    expect(pathTo(only(get, 'PetCatalog.getPet'), get)).toEqual(['GET /v1/pets/:petId', 'getPet', 'PetCatalog.getPet']);

    const commands = [...create, ...get].filter((span) => span.attributes['db.system.name'] === 'mongodb');
    if (storage === 'memory') {
      expect(commands).toEqual([]);
      return;
    }
    // One span per command, beneath the use case that sent it, naming the collection and the operation.
    expect(commands.map((span) => span.name)).toEqual(expect.arrayContaining(['insert pets', 'find pets']));
    for (const command of commands) {
      expect(command.kind).toBe(SpanKind.CLIENT);
      expect(command.name).toBe(`${command.attributes['db.operation.name']} ${command.attributes['db.collection.name']}`);
      expect(pathTo(command, [...create, ...get]).at(-2)).toMatch(/^PetCatalog\./);
    }
    expect(String(commands.find((span) => span.name === 'insert pets')!.attributes['db.query.text'])).toContain('"name":"?"');
  });

  it('lists pets in the listPets use case', async () => {
    const list = await spansOf(traceIdOf(await call('GET', '/v1/pets?limit=2')));
    expect(pathTo(only(list, 'PetCatalog.listPets'), list)).toEqual(['GET /v1/pets', 'listPets', 'PetCatalog.listPets']);
  });

  it("continues the caller's trace from traceparent and tracestate", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const listed = await call('GET', '/v1/pets', { traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: 'vendor=opaque' });
    expect(traceIdOf(listed)).toBe(callerTrace);
    const root = only(await spansOf(callerTrace), 'GET /v1/pets');
    expect(root.parent).toMatchObject({ traceId: callerTrace, spanId: callerSpan, isRemote: true });
    expect(root.traceState).toBe('vendor=opaque');
    // The header names the server span: the child of the caller's span.
    expect(listed.headers.get('traceresponse')).toBe(`00-${callerTrace}-${root.spanId}-01`);
  });

  it('sets the error status of a 500 and records its exception', async () => {
    const failed = await call('GET', '/v1/pets', { 'X-Test-Throw': 'plain' });
    expect(failed.status).toBe(500);
    const spans = await spansOf(traceIdOf(failed));
    // It failed before routing: the server span has no route to be named by (semantic conventions: the method).
    const server = only(spans, 'GET');
    expect(server).toMatchObject({ kind: SpanKind.SERVER, status: { code: SpanStatusCode.ERROR } });
    expect(server.attributes).toMatchObject({ 'http.response.status_code': 500, 'error.type': '500' });
    expect(server.attributes['http.route']).toBeUndefined();
    expect(server.events.map((event) => [event.name, event.attributes?.['exception.message']])).toEqual([['exception', 'an unexpected failure']]);
    expect(spans).toHaveLength(1);
  });

  it('marks a use case that failed with its domain error code', async () => {
    const missing = await call('GET', '/v1/pets/987654321');
    expect(missing.status).toBe(404);
    const getPet = only(await spansOf(traceIdOf(missing)), 'PetCatalog.getPet');
    expect(getPet.status.code).toBe(SpanStatusCode.ERROR);
    expect(getPet.attributes['error.type']).toBe('pet_not_found');
    // A 4xx is the client's: the server span is not in error (semantic conventions).
    const server = only(await spansOf(traceIdOf(missing)), 'GET /v1/pets/:petId');
    expect(server).toMatchObject({ status: { code: SpanStatusCode.UNSET }, attributes: { 'http.response.status_code': 404 } });
  });

  it('records nothing of a request its caller did not sample, and names no trace in its log line or its response', async () => {
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    const listed = await call('GET', '/v1/pets', { traceparent: `00-${callerTrace}-${callerSpan}-00`, 'X-Request-Id': 'not-sampled' });
    expect(listed.status).toBe(200);
    // Ids of a trace no backend holds would only mislead: an unsampled request's traceresponse and lines carry none.
    expect(listed.headers.get('traceresponse')).toBeNull();
    expect(traceFieldsOf(await requestLine('not-sampled'))).toEqual({});
    // A sampled request after it: its spans are finished once its server span is, and none is of the caller's trace.
    await spansOf(traceIdOf(await call('GET', '/v1/pets')));
    expect((await finishedSpans()).filter((span) => span.traceId === callerTrace)).toEqual([]);
  });

  it('carries nothing of a sampled request into an unsampled one on the same connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sampled = await callOn(agent, '/v1/pets', { 'X-Request-Id': 'sampled-first' });
      expect(sampled.traceId, 'a traceresponse header').toBeDefined();
      await spansOf(sampled.traceId!);
      const before = (await finishedSpans()).length;
      const unsampled = await callOn(agent, '/v1/pets', {
        traceparent: '00-1bf92f3577b34da6a3ce929d0e0e4737-00f067aa0ba902b8-00',
        'X-Request-Id': 'unsampled-next',
      });
      expect(unsampled.socket).toBe(sampled.socket);
      expect(unsampled.traceId, 'no traceresponse').toBeUndefined();
      expect(traceFieldsOf(await requestLine('unsampled-next'))).toEqual({});
      expect(traceFieldsOf(await requestLine('sampled-first'))).toMatchObject({ trace_id: sampled.traceId, trace_flags: '01' });
      // A traced request after it: its spans are the only new ones (none of the unsampled request joined a trace).
      const traced = await spansOf(traceIdOf(await call('GET', '/v1/pets')));
      expect((await finishedSpans()).length - before).toBe(traced.length);
    } finally {
      agent.destroy();
    }
  });

  it('makes no span for the probes', async () => {
    const before = (await finishedSpans()).length;
    for (const path of ['/healthz', '/readyz']) {
      const response = await call('GET', path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('traceresponse'), path).toBeNull();
    }
    // A traced request after them: its spans are the only new ones.
    const traced = await spansOf(traceIdOf(await call('GET', '/v1/pets')));
    expect((await finishedSpans()).length - before).toBe(traced.length);
  });

  it('writes the trace id and a span id of the request into its log lines, the request line included', async () => {
    const listed = await call('GET', '/v1/pets', { 'X-Request-Id': 'log-joins-trace' });
    const spanIds = (await spansOf(traceIdOf(listed))).map((span) => span.spanId);
    const line = await requestLine('log-joins-trace');
    expect(line).toMatchObject({ trace_id: traceIdOf(listed), trace_flags: '01' });
    expect(spanIds).toContain(line!.span_id);
  });

  it('puts no key, no Authorization header and no pet name in any attribute', async () => {
    await call('GET', '/v1/pets', { Authorization: `Bearer ${TEST_API_KEY}-wrong` });
    const spans = await finishedSpans();
    const attributes = JSON.stringify(spans.map((span) => [span.attributes, span.events, span.resource]));
    expect(attributes).toContain('/v1/pets');
    for (const secret of [TEST_API_KEY, 'Bearer', SECRET_NAME, 'Wilhelmina']) expect(attributes).not.toContain(secret);
  });
});
