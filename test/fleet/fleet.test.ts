import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCHANGE_EVERY_MS } from '../../src/adapters/mongo/mongo-rate-limiter.js';
import { freshDbName, pickFreePort, startJongodb, type RunningMongo } from '../support/mongo-server.js';
import { rawExchange } from '../support/raw-exchange.js';
import { startListening, type ListeningService } from '../support/service-process.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

/*
 * Two built service processes on one MongoDB-wire server, as ops run them: a single-member replica set (so the
 * driver runs its replica-set code, writes with w: majority) behind a round-robin balancer that follows /readyz.
 * With MONGODB_URL set, the same cases run against that server, save the stall, which needs a server to stop.
 */

// The default: the 503s of the stall come from it, and a loaded machine still answers within it.
const TIMEOUT_MS = 2500;
const external = process.env.MONGODB_URL?.trim() || undefined;
const AUTH = { Authorization: `Bearer ${TEST_API_KEY}` };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The test's own servers keep everything in memory and go with it; on a MONGODB_URL server its databases are dropped.
const databases: string[] = [];
function freshDatabase(hint: string): string {
  databases.push(freshDbName(hint));
  return databases.at(-1)!;
}
afterAll(async () => {
  if (external === undefined) return;
  const client = await new MongoClient(external).connect();
  await Promise.all(databases.map((name) => client.db(name).dropDatabase())).finally(() => client.close());
});

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
  readonly startedAt: number;
  readonly ms: number;
}

async function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const startedAt = performance.now();
  const response = await fetch(url, { ...init, headers: { ...AUTH, ...init.headers } });
  const text = await response.text();
  return { status: response.status, text, headers: response.headers, startedAt, ms: performance.now() - startedAt };
}

const create = (base: string, name: string, key?: string) =>
  send(`${base}/v1/pets`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }) },
    body: JSON.stringify({ name, categoryId: 1 }),
  });

/** Every stored pet, page after page through rel="next" (ids are small here: JSON.parse keeps them exact). */
async function walk(base: string, limit = 100): Promise<{ id: number; name: string }[]> {
  const pets: { id: number; name: string }[] = [];
  let path: string | undefined = `/v1/pets?limit=${limit}`;
  while (path !== undefined) {
    const page = await send(`${base}${path}`);
    expect(page.status).toBe(200);
    pets.push(...(JSON.parse(page.text) as { id: number; name: string }[]));
    path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1];
  }
  return pets;
}

/** How many stored pets carry each name. */
async function storedNames(base: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const pet of await walk(base)) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1);
  return counts;
}

interface Fleet {
  readonly mongo: RunningMongo | undefined;
  readonly ports: readonly number[];
  readonly instances: ListeningService[];
  readonly start: (index: number) => Promise<ListeningService>;
  readonly stop: () => Promise<void>;
}

async function startFleet(mongoUrl: string, env: Record<string, string>, mongo?: RunningMongo): Promise<Fleet> {
  const ports = [await pickFreePort(), await pickFreePort()];
  const shared = {
    STORAGE: 'mongodb',
    MONGODB_URL: mongoUrl,
    MONGODB_DB: freshDatabase('fleet'),
    MONGODB_TIMEOUT_MS: String(TIMEOUT_MS),
    // Unready for 2 s after SIGTERM while still answering: the balancer needs three failed polls, each up to 1 s on a busy machine.
    SHUTDOWN_GRACE_MS: '2000',
    ...env,
  };
  const start = (index: number) => startListening({ ...shared, PORT: String(ports[index]) });
  const instances = await Promise.all([start(0), start(1)]);
  return {
    mongo,
    ports,
    instances,
    start,
    stop: async () => {
      for (const child of instances) child.process.kill('SIGTERM');
      await Promise.all(instances.map((child) => child.exited));
    },
  };
}

/** One create on a connection of its own: raw sockets keep the cost of 2,000 clients next to nothing. */
async function rawCreate(port: number, name: string): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const body = JSON.stringify({ name, categoryId: 1 });
  const raw = await rawExchange(`http://127.0.0.1:${port}`, [
    `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  ]);
  const [head = '', text = ''] = raw.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), retryAfter: /^Retry-After: (.*)$/im.exec(head)?.[1], body: text };
}

/** `clients` loops, each creating (with its own Idempotency-Keys when `keyed`) and listing through `base` until `stop()`. */
function loadThrough(base: string, clients: number, tag: string, keyed: boolean) {
  const creates: (Answer & { name: string })[] = [];
  const lists: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async (_, client) => {
    for (let n = 0; running; n++) {
      const name = `${tag}-${client}-${n}`;
      creates.push({ ...(await create(base, name, keyed ? name : undefined)), name });
      lists.push(await send(`${base}/v1/pets?limit=5`));
    }
  });
  return {
    creates,
    lists,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe('a fleet of two instances on one MongoDB replica set, behind a balancer that follows /readyz', () => {
  let fleet: Fleet;
  let proxy: RoundRobinProxy;
  const direct = (index: number) => `http://127.0.0.1:${fleet.ports[index]}`;

  beforeAll(async () => {
    const mongo = external === undefined ? await startJongodb(['--topology-profile=singleNodeReplicaSet', '--replica-set-name=rs0']) : undefined;
    const url = mongo === undefined ? external! : `${mongo.url}?replicaSet=rs0&w=majority`;
    // Limits off: the load below is one API key; the shared limit has its own pair of instances.
    fleet = await startFleet(url, { RATE_LIMIT_PER_MINUTE: '0' }, mongo);
    proxy = await startRoundRobinProxy(fleet.ports);
    await Promise.all(fleet.ports.map((port) => proxy.ready(port)));
  });
  afterAll(async () => {
    await proxy?.close();
    await fleet?.stop();
    await fleet?.mongo?.stop();
  });

  it('gives 200 creates, 50 at a time over both instances, distinct ids that a walk of every page finds once each', async () => {
    const before = [...proxy.routed.values()];
    const ids: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => create(proxy.url, `unique-${batch}-${i}`)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(201));
      ids.push(...answers.map((answer) => (JSON.parse(answer.text) as { id: number }).id));
    }
    expect(new Set(ids).size).toBe(200);
    // Spread over both: each served some (half each, unless a slow probe took one out for a moment).
    const served = [...proxy.routed.values()].map((count, i) => count - before[i]!);
    expect(served[0]! + served[1]!).toBe(200);
    expect(Math.min(...served)).toBeGreaterThan(0);
    const walked = (await walk(proxy.url, 37)).map((pet) => pet.id);
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.filter((id) => ids.includes(id)).sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  it('replays an Idempotency-Key on the other instance: the same pet, stored once; another body is 422', async () => {
    const first = await create(direct(0), 'replayed', 'fleet-replay');
    const replay = await create(direct(1), 'replayed', 'fleet-replay');
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await create(direct(1), 'another body', 'fleet-replay')).status).toBe(422);
    expect((await storedNames(direct(0))).get('replayed')).toBe(1);
  });

  it('takes a cursor from one instance on the other', async () => {
    const firstPage = await send(`${direct(0)}/v1/pets?limit=3`);
    const next = /^<([^>]+)>; rel="next"$/.exec(firstPage.headers.get('link') ?? '')?.[1];
    expect(next).toMatch(/cursor=/);
    const onOther = await send(`${direct(1)}${next}`);
    const onSame = await send(`${direct(0)}${next}`);
    expect(onOther.status).toBe(200);
    expect(onOther.text).toBe(onSame.text);
    const [lastOfFirst] = (JSON.parse(firstPage.text) as { id: number }[]).slice(-1);
    expect((JSON.parse(onOther.text) as { id: number }[])[0]!.id).toBeGreaterThan(lastOfFirst!.id);
  });

  it('loses nothing through a rolling restart under 20 clients: no failed request, every 201 stored once, both exit 0', async () => {
    const load = loadThrough(proxy.url, 20, 'rolling', true);
    const startedAt = performance.now();
    await sleep(2000);
    for (const index of [0, 1]) {
      const old = fleet.instances[index]!;
      old.process.kill('SIGTERM');
      expect(await old.exited).toBe(0);
      fleet.instances[index] = await fleet.start(index);
      await proxy.ready(fleet.ports[index]!);
    }
    await sleep(Math.max(0, 12_000 - (performance.now() - startedAt)));
    await load.stop();

    const failed = [...load.creates, ...load.lists].filter((answer) => answer.status !== 201 && answer.status !== 200);
    process.stderr.write(`[fleet] rolling restart: ${load.creates.length} creates, ${load.lists.length} lists, ${failed.length} failed, ${Math.round(performance.now() - startedAt)} ms\n`);
    const described = failed.map((answer) => `${answer.status} ${answer.text} (sent at ${Math.round(answer.startedAt - startedAt)} ms)`);
    expect(failed.length, described.join('\n')).toBe(0);
    expect(load.creates.every((answer) => answer.status === 201)).toBe(true);
    const stored = await storedNames(proxy.url);
    expect(load.creates.filter((answer) => stored.get(answer.name) !== 1).map((answer) => answer.name)).toEqual([]);
  });

  it.skipIf(external !== undefined)(
    'answers a 3 s MongoDB stall under load with 200, 201 or a prompt 503 with Retry-After, and recovers within 2 s',
    async () => {
      // Without keys: a keyed create that fails waits for the release of its claim too (a second timeout).
      const load = loadThrough(proxy.url, 10, 'stall', false);
      await sleep(1000);
      const pid = fleet.mongo!.pid!;
      process.kill(pid, 'SIGSTOP');
      await sleep(3000);
      process.kill(pid, 'SIGCONT');
      const continued = performance.now();
      await sleep(3000);
      await load.stop();

      const answers = [...load.creates, ...load.lists];
      const unavailable = answers.filter((answer) => answer.status === 503);
      const late = answers.filter((answer) => answer.startedAt >= continued + 2000);
      process.stderr.write(
        `[fleet] stall: ${answers.length} answers, ${unavailable.length} x 503 (slowest ${Math.round(Math.max(0, ...unavailable.map((a) => a.ms)))} ms), ` +
          `${late.length} sent from 2 s after the continue\n`,
      );
      expect(answers.filter((answer) => ![200, 201, 503].includes(answer.status)).map((answer) => `${answer.status} ${answer.text}`)).toEqual([]);
      expect(unavailable.length).toBeGreaterThan(0);
      for (const answer of unavailable) {
        expect(answer.ms).toBeLessThan(TIMEOUT_MS + 1000);
        expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      expect(late.length).toBeGreaterThan(0);
      expect(late.filter((answer) => answer.status === 503)).toEqual([]);
      const stored = await storedNames(proxy.url);
      expect(load.creates.filter((answer) => answer.status === 201 && stored.get(answer.name) !== 1).map((answer) => answer.name)).toEqual([]);
    },
  );
});

// Here rather than in a file of its own, so that the burst never runs beside the fleet: on two cores each one's
// load slowed the other past its timeouts.
describe('on a standalone server', () => {
  let mongo: RunningMongo | undefined;
  const mongoUrl = () => external ?? mongo!.url;
  beforeAll(async () => {
    mongo = external === undefined ? await startJongodb() : undefined;
  });
  afterAll(async () => {
    await mongo?.stop();
  });

  describe('the rate limit, shared by two instances', () => {
    let fleet: Fleet;

    beforeAll(async () => {
      fleet = await startFleet(mongoUrl(), { RATE_LIMIT_PER_MINUTE: '60' });
    });
    afterAll(async () => {
      await fleet?.stop();
    });

    it('admits the quota and at most what the other instance admits between two exchanges on top', async () => {
      // Windows are aligned to the minute: start well inside one. The 100 requests take 2 s unloaded; a slow CI
      // machine gets 15 s of margin before a new window would reset the count.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 100);
      const GAP_MS = 20;
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        statuses.push((await send(`http://127.0.0.1:${fleet.ports[i % 2]}/v1/pets?limit=1`)).status);
        await sleep(GAP_MS);
      }
      const admitted = statuses.filter((status) => status === 200).length;
      // Counted apart, each instance would admit its 50. Shared, the overshoot is what the other instance admits
      // while its hits and this one's reading are in flight: two exchanges, at one request per 2 x GAP_MS.
      const overshoot = Math.ceil((2 * EXCHANGE_EVERY_MS) / (2 * GAP_MS));
      process.stderr.write(`[fleet] 100 requests alternating over two instances, quota 60 a minute: ${admitted} admitted (bound ${60 + overshoot})\n`);
      expect(statuses.slice(0, 60)).toEqual(Array(60).fill(200));
      expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      expect(admitted).toBeLessThanOrEqual(60 + overshoot);
    });
  });

  describe('a burst of creates is not an outage', () => {
    const BURST = 2000;
    let child: ListeningService;
    let db: string;

    beforeAll(async () => {
      db = freshDatabase('burst');
      // No MONGODB_TIMEOUT_MS: the default.
      child = await startListening({ STORAGE: 'mongodb', MONGODB_URL: mongoUrl(), MONGODB_DB: db });
    });
    afterAll(async () => {
      child?.process.kill('SIGTERM');
      await child?.exited;
    });

    it(`answers ${BURST} concurrent creates 201, or 503 storage_unavailable with Retry-After, and stores exactly the pets answered 201`, async () => {
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => rawCreate(child.port, `burst-${i}`)));
      const ms = Math.round(performance.now() - started);
      const created = answers.filter((answer) => answer.status === 201);
      const refused = answers.filter((answer) => answer.status === 503);
      const client = await new MongoClient(mongoUrl()).connect();
      const stored = await client
        .db(db)
        .collection<{ name: string }>('pets')
        .find({}, { projection: { name: 1 } })
        .toArray()
        .finally(() => client.close());
      process.stderr.write(`[burst] ${BURST} concurrent creates: ${created.length} x 201, ${refused.length} x 503 refused, ${stored.length} stored, ${ms} ms\n`);

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
});
