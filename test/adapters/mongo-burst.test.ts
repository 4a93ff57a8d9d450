import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropTestDatabase, freshMongoSettings, rawClient } from '../support/mongo-test-db.js';
import { rawExchange } from '../support/raw-exchange.js';
import { startChild, type Child } from '../support/service-process.js';
import { TEST_API_KEY } from '../support/test-config.js';

const BURST = 2000;

/** One create on a connection of its own; raw sockets keep the client's cost per request next to nothing. */
async function create(port: number, name: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const body = `{"name":"${name}","categoryId":1}`;
  const raw = await rawExchange(`http://127.0.0.1:${port}`, [
    `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ]);
  const [head = '', text = ''] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), retryAfter: /^Retry-After: (.*)$/im.exec(head)?.[1], body: text };
}

// The built service as its own process, so that the burst's 2,000 client sockets do not share its event loop.
describe('a burst of creates on a healthy MongoDB is not an outage', () => {
  const settings = freshMongoSettings('burst');
  let child: Child;

  beforeAll(async () => {
    // No MONGODB_TIMEOUT_MS: the default.
    child = await startChild({ STORAGE: 'mongodb', MONGODB_URL: settings.url, MONGODB_DB: settings.db });
  });
  afterAll(async () => {
    child.process.kill('SIGTERM');
    await child.exited;
    await dropTestDatabase(settings);
  });

  it(`answers ${BURST} concurrent creates 201, or 503 storage_unavailable with Retry-After, and stores exactly the pets answered 201`, async () => {
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => create(child.port, `burst-${i}`)));
    const ms = Math.round(performance.now() - started);
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 503);
    const client = await rawClient(settings);
    const stored = await client
      .db(settings.db)
      .collection<{ name: string }>('pets')
      .find({}, { projection: { name: 1 } })
      .toArray()
      .finally(() => client.close());
    process.stderr.write(`[burst] ${BURST} concurrent creates: ${created.length} x 201, ${refused.length} x 503 refused, ${stored.length} stored, ${ms} ms (${inject('mongoKind')})\n`);

    expect(created.length + refused.length).toBe(BURST);
    for (const answer of refused) {
      expect(JSON.parse(answer.body)).toEqual({ code: 'storage_unavailable', message: 'Storage is temporarily unavailable. Retry later.', status: 503 });
      expect(answer.retryAfter).toBe('5');
    }
    // Every refusal came before anything was written: no 503 hides a stored pet.
    const createdNames = created.map((answer) => (JSON.parse(answer.body) as { name: string }).name);
    expect(stored.map((pet) => pet.name).sort()).toEqual(createdNames.sort());
    expect(created.length).toBeGreaterThan(0);
  });
});
