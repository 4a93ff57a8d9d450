import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { StorageUnavailable } from '../../src/core/errors.js';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { freshMongoSettings, openTestStore, rawClient, type TestStore } from '../support/mongo-test-db.js';
import { createTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

// The outage bound under test: operations give up after this, plus slack for a loaded CI machine.
const TIMEOUT_MS = 1500;
const SLACK_MS = 1500;
// Start-up also composes the app, listens and fetches the OpenAPI document before it is timed as done.
const START_SLACK_MS = 3000;

/** How long the promise took to settle, and how. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const start = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: Math.round(performance.now() - start), result: result! };
}

function report(what: string, ms: number): void {
  process.stderr.write(`[outage] ${what}: ${ms} ms (${inject('mongoKind')})\n`);
}

describe('MongoPetRepository while MongoDB is down', () => {
  let proxy: TcpProxy;
  let store: TestStore;

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    await proxy.up();
    store = openTestStore(freshMongoSettings('outage', { url: proxy.url, timeoutMs: TIMEOUT_MS }));
  });
  afterAll(async () => {
    await proxy.up();
    await store.close();
    await proxy.down();
  });

  it('answers StorageUnavailable within the timeout for every operation, then recovers with its data', async () => {
    const repo = store.repository;
    const before = await repo.add({ name: 'before', categoryId: 1n });
    await proxy.down();

    // Twice: right after the connections drop, and again once the driver has seen them fail.
    for (const round of ['first', 'second']) {
      const outcomes = await Promise.all(
        Object.entries({
          add: repo.add({ name: 'during', categoryId: 2n }),
          findById: repo.findById(before.id),
          list: repo.list({ limit: 10 }),
          count: repo.count(),
        }).map(async ([name, operation]) => ({ name, ...(await timed<unknown>(operation)) })),
      );
      for (const { name, ms, result } of outcomes) {
        report(`${round} ${name} while down`, ms);
        expect(result.status, name).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as Error;
        expect(reason, name).toBeInstanceOf(StorageUnavailable);
        expect(reason.message).toBe('Storage is temporarily unavailable. Retry later.');
        expect(ms, name).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }
    }
    const probe = await timed(repo.isReachable());
    report('isReachable while down', probe.ms);
    expect(probe.result).toEqual({ status: 'fulfilled', value: false });
    expect(probe.ms).toBeLessThan(1000 + SLACK_MS);

    await proxy.up();
    const recovered = await timed(repo.add({ name: 'after', categoryId: 3n }));
    report('first add after the server is back', recovered.ms);
    expect(recovered.result.status).toBe('fulfilled');
    expect(recovered.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    const after = (recovered.result as PromiseFulfilledResult<Awaited<ReturnType<typeof repo.add>>>).value;
    expect(after.id > before.id).toBe(true);
    expect(await repo.findById(before.id)).toEqual(before);
    expect(await repo.isReachable()).toBe(true);
  });
});

describe('the service started while MongoDB is down', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  let startMs: number;
  const settings = freshMongoSettings('late');

  beforeAll(async () => {
    proxy = await createTcpProxy(inject('mongoUrl'));
    const start = performance.now();
    server = await startTestServer({ storage: 'mongodb', mongodb: { ...settings, url: proxy.url, timeoutMs: TIMEOUT_MS } });
    startMs = Math.round(performance.now() - start);
    report('start-up with MongoDB down', startMs);
  });
  afterAll(async () => {
    await proxy.up();
    await server.stop();
    await proxy.down();
  });

  it('starts within the timeout, answers 503 promptly, and recovers without a restart', async () => {
    expect(startMs).toBeLessThan(TIMEOUT_MS + START_SLACK_MS);

    const ready = await timed(server.request('GET', '/readyz'));
    report('/readyz while down', ready.ms);
    expect(ready.result).toMatchObject({ status: 'fulfilled', value: { status: 503, text: '{"status":"unavailable"}' } });

    for (const [method, path, body] of [
      ['GET', '/v1/pets', undefined],
      ['GET', '/v1/pets/1', undefined],
      ['POST', '/v1/pets', '{"name":"Rex","categoryId":1}'],
    ] as const) {
      const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
      const { ms, result } = await timed(server.request(method, path, { headers, body }));
      report(`${method} ${path} while down`, ms);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      const response = (result as PromiseFulfilledResult<Awaited<ReturnType<TestServer['request']>>>).value;
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.json).toEqual({
        code: 'storage_unavailable',
        message: 'Storage is temporarily unavailable. Retry later.',
        status: 503n,
      });
    }

    await proxy.up();
    const back = performance.now();
    while ((await server.request('GET', '/readyz')).status !== 200) {
      expect(performance.now() - back).toBeLessThan(5000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    report('ready again after the server is back', Math.round(performance.now() - back));

    const created = await server.createPet('{"name":"Rex","categoryId":9223372036854775807}');
    expect(created.status).toBe(201);
    const listed = await server.request('GET', '/v1/pets');
    expect(listed.text).toBe(`[${created.text}]`);
    // The index that start-up could not create was created on reconnect.
    const client = await rawClient({ ...settings, url: proxy.url });
    try {
      const names = (await client.db(settings.db).collection('pets').indexes()).map((index) => index.name);
      expect(names).toContain('status_1__id_1');
    } finally {
      await client.close();
    }
  });
});
