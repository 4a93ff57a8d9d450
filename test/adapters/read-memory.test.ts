import 'reflect-metadata';
import { Agent, get } from 'node:http';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { compose, openStorage, TOKENS } from '../../src/container.js';
import { TEST_API_KEY, testConfig } from '../support/test-config.js';

// Reads of a large memory store through the real app: what they leave behind on the heap once collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const PETS = 100_000;
const READS = 30_000;
// 140,000 operations in one process: with the 2 cores shared and loaded this took over vitest's 20 s.
const READ_TEST_TIMEOUT_MS = 90_000;

const retainedMiB = () => {
  gc();
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return (heapUsed + external) / 2 ** 20;
};

describe('reading a memory store of 100,000 pets through the app', () => {
  let server: Server | undefined;
  afterAll(() => server?.close());

  it('keeps no more memory after 30,000 reads of different pets than before them', async () => {
    const config = testConfig({ rateLimitPerMinute: 10_000_000 });
    const logger = pino({ level: 'silent' });
    const storage = await openStorage(config, { logger });
    const container = compose(config, { apiKeys: [TEST_API_KEY], logger, storage, isDraining: () => false, onUnexpectedError: () => {} });
    const repository = container.get(TOKENS.petRepository);
    for (let n = 0; n < PETS; n++) await repository.add({ name: `pet ${n}`, categoryId: BigInt(n % 7), status: 'available' });
    server = createServer(container.get(TOKENS.httpApp).callback()).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const read = (id: number) =>
      new Promise<number>((resolve, reject) =>
        get({ port, host: '127.0.0.1', path: `/v1/pets/${id}`, agent, headers: { Authorization: `Bearer ${TEST_API_KEY}` } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        }).on('error', reject),
      );
    const readMany = async (from: number, count: number) => {
      for (let n = from; n < from + count; n += 8) {
        const statuses = await Promise.all(Array.from({ length: 8 }, (_, k) => read(1 + ((n + k) * 7919) % PETS)));
        expect(statuses.every((status) => status === 200)).toBe(true);
      }
    };
    // Warmed first: compiled code and the bounded caches filling up are not what this looks for.
    await readMany(0, 10_000);
    const before = retainedMiB();
    await readMany(10_000, READS);
    const after = retainedMiB();
    agent.destroy();
    // A string kept per pet read would be over 3 MiB here (30,000 pets); the bounded caches vary by about 1 MiB.
    expect(after - before).toBeLessThan(2);
  }, READ_TEST_TIMEOUT_MS);
});
