import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestResponse, type TestServer } from '../support/http-harness.js';
import { captureLogs, type CapturedLogs } from '../support/log-capture.js';
import { freshMongoSettings, rawClient } from '../support/mongo-test-db.js';

type Commands = Record<string, number>;

/** animal_store_mongodb_commands_total by command, as /metrics shows it. */
async function commandCounts(server: TestServer): Promise<Commands> {
  const { text } = await server.request('GET', '/metrics');
  const counts: Commands = {};
  for (const [, command, value] of text.matchAll(/^animal_store_mongodb_commands_total\{command="(\w+)"\} (\d+)$/gm)) {
    counts[command!] = Number(value);
  }
  return counts;
}

/**
 * The commands the request sent to MongoDB, read from the service's own counter around it. Every
 * scrape asks MongoDB for the pet count (the animal_store_pets gauge), so `count` is left out.
 */
async function roundTripsOf(server: TestServer, request: () => Promise<TestResponse>): Promise<{ response: TestResponse; commands: Commands }> {
  const before = await commandCounts(server);
  const response = await request();
  const after = await commandCounts(server);
  const commands: Commands = {};
  for (const [command, value] of Object.entries(after)) {
    const sent = value - (before[command] ?? 0);
    if (command !== 'count' && sent > 0) commands[command] = sent;
  }
  process.stderr.write(`[round trips] ${response.status}: ${JSON.stringify(commands)}\n`);
  return { response, commands };
}

const json = { 'Content-Type': 'application/json' };

describe('round trips to MongoDB per request, counted by the service (animal_store_mongodb_commands_total)', () => {
  let server: TestServer;
  let petId: string;

  beforeAll(async () => {
    server = await startTestServer({ storage: 'mongodb' });
    const created = await server.createPet('{"name":"Rex","categoryId":1,"status":"available"}');
    expect(created.status).toBe(201);
    petId = String((created.json as { id: bigint }).id);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('lists in one round trip, with or without a status filter and a cursor', async () => {
    for (const path of ['/v1/pets', '/v1/pets?status=available&limit=5']) {
      const { response, commands } = await roundTripsOf(server, () => server.request('GET', path));
      expect(response.status).toBe(200);
      expect(commands).toEqual({ find: 1 });
    }
  });

  it('gets a pet in one round trip, found or not', async () => {
    for (const [path, status] of [[`/v1/pets/${petId}`, 200], ['/v1/pets/999999', 404]] as const) {
      const { response, commands } = await roundTripsOf(server, () => server.request('GET', path));
      expect(response.status).toBe(status);
      expect(commands).toEqual({ find: 1 });
    }
  });

  it('creates without an Idempotency-Key in two: the id counter and the insert', async () => {
    const { response, commands } = await roundTripsOf(server, () => server.createPet('{"name":"Tom","categoryId":2}'));
    expect(response.status).toBe(201);
    expect(commands).toEqual({ findAndModify: 1, insert: 1 });
  });

  it('creates with an Idempotency-Key in the same two, and replays in one more read for the pet the key names', async () => {
    const keyed = { ...json, 'Idempotency-Key': '"round-trips-1"' };
    const body = '{"name":"Kit","categoryId":3}';
    const first = await roundTripsOf(server, () => server.request('POST', '/v1/pets', { headers: keyed, body }));
    expect(first.response.status).toBe(201);
    expect(first.commands).toEqual({ findAndModify: 1, insert: 1 });
    const replay = await roundTripsOf(server, () => server.request('POST', '/v1/pets', { headers: keyed, body }));
    expect(replay.response.status).toBe(201);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    // The counter and the insert, which meets the key's index; then the read of the pet holding the key.
    expect(replay.commands).toEqual({ findAndModify: 1, insert: 1, find: 1 });
  });
});

describe('round trips with rate limiting on', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ storage: 'mongodb', rateLimitPerMinute: 100_000 });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('adds none to requests: counts are exchanged in the background, at most one exchange per 500 ms', async () => {
    const requests = 30;
    const started = performance.now();
    const { commands } = await roundTripsOf(server, async () => {
      let last: TestResponse | undefined;
      for (let i = 0; i < requests; i++) last = await server.request('GET', '/v1/pets');
      return last!;
    });
    const exchangesAllowed = Math.ceil((performance.now() - started) / 500) + 1;
    // An exchange is one bulk write (update) and one read of the totals (find); the scrapes around the
    // requests count too. Only what the background exchanges add may come on top of one find per request.
    const exchanges = commands.update ?? 0;
    expect(exchanges).toBeLessThanOrEqual(exchangesAllowed);
    expect(commands.find).toBeGreaterThanOrEqual(requests);
    expect(commands.find).toBeLessThanOrEqual(requests + exchanges + 1);
    expect(Object.keys(commands).sort()).toEqual(exchanges === 0 ? ['find'] : ['find', 'update']);
  });
});

describe('the pet id allocator on MongoDB', () => {
  let server: TestServer;
  let logs: CapturedLogs;
  const settings = freshMongoSettings('id-taken');

  beforeAll(async () => {
    logs = await captureLogs('debug');
    server = await startTestServer({ storage: 'mongodb', mongodb: settings }, { logger: logs.logger });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('logs at debug every id it found taken, then creates the pet under a fresh id', async () => {
    const first = await server.createPet('{"name":"a","categoryId":1}');
    const second = await server.createPet('{"name":"b","categoryId":1}');
    expect([first.status, second.status]).toEqual([201, 201]);
    const client = await rawClient(settings);
    try {
      // As after restoring an old backup of the counters collection: the next id is taken.
      await client.db(settings.db).collection<{ _id: string; seq: bigint }>('counters').updateOne({ _id: 'pets' }, { $set: { seq: 0n } });
    } finally {
      await client.close();
    }
    const third = await server.createPet('{"name":"c","categoryId":1}');
    expect(third.status).toBe(201);
    expect((third.json as { id: bigint }).id).toBe((second.json as { id: bigint }).id + 1n);
    const retries = logs.entries().filter((entry) => entry.msg === 'pet id taken already; retrying with a fresh id');
    expect(retries).toEqual([expect.objectContaining({ level: 20, petId: String((first.json as { id: bigint }).id) })]);
  });
});
