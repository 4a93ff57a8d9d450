import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toErrorResponse } from '../../src/adapters/http/error-responses.js';
import { StorageUnavailable } from '../../src/core/errors.js';
import { freshDbName, pickFreePort, startMongoServer, type RunningMongo } from '../support/mongo-server.js';
import { portOf, ROOT, spawnService, type ServiceProcess } from '../support/service-process.js';
import { TEST_API_KEY } from '../support/test-config.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How many requests for one pet an instance logged. */
const petReads = (instance: ServiceProcess) => instance.output().split('\n').filter((line) => line.includes('"route":"/v1/pets/:petId"')).length;

/** compose.yaml's HAProxy config, with the instances and the front end moved to loopback ports. */
function localHaproxyConfig(frontPort: number, instancePorts: Record<string, number>): string {
  let cfg = readFileSync(join(ROOT, 'deploy/compose/haproxy.cfg'), 'utf8')
    .replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${frontPort}`)
    .replace(/errorfile 503 \S+/, `errorfile 503 ${join(ROOT, 'deploy/compose/503.http')}`);
  for (const [name, port] of Object.entries(instancePorts)) {
    cfg = cfg.replace(new RegExp(`^(\\s*server ${name}) ${name}:3000 `, 'm'), `$1 127.0.0.1:${port} `);
  }
  return cfg;
}

/**
 * The Compose fleet's balancer for real: Debian's haproxy (`.ci/run` installs it) with deploy/compose/haproxy.cfg,
 * in front of two instances of the built service on one MongoDB database.
 */
describe('HAProxy with the fleet configuration', () => {
  let mongo: RunningMongo;
  let dir: string;
  let haproxy: ChildProcess;
  let front: string;
  let env: Record<string, string>;
  const ports: Record<string, number> = {};
  const instances: Record<string, ServiceProcess> = {};
  const headers = { Authorization: `Bearer ${TEST_API_KEY}` };

  beforeAll(async () => {
    mongo = await startMongoServer();
    env = { STORAGE: 'mongodb', MONGODB_URL: mongo.url, MONGODB_DB: freshDbName('load-balancer'), SHUTDOWN_GRACE_MS: '5000' };
    for (const name of ['app-1', 'app-2']) {
      instances[name] = spawnService({ env });
      ports[name] = portOf(await instances[name].logged('listening'));
    }
    const frontPort = await pickFreePort();
    front = `http://127.0.0.1:${frontPort}`;
    dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
    writeFileSync(join(dir, 'haproxy.cfg'), localHaproxyConfig(frontPort, ports));
    haproxy = spawn('haproxy', ['-db', '-f', join(dir, 'haproxy.cfg')], { stdio: 'ignore' });
    // Until both instances passed their checks, the front end may refuse or answer 503.
    for (let ready = 0; ready < 6; ) {
      const status = await fetch(`${front}/v1/pets`, { headers }).then((response) => response.status, () => 0);
      ready = status === 200 ? ready + 1 : 0;
      await sleep(50);
    }
  }, 60_000);

  afterAll(async () => {
    haproxy?.kill('SIGTERM');
    for (const instance of Object.values(instances)) instance.process.kill('SIGKILL');
    await mongo?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('spreads requests over both instances, which serve one catalogue', async () => {
    const created = await fetch(`${front}/v1/pets`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: '{"name":"Balanced","categoryId":2}',
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 6; i++) {
      const read = await fetch(new URL(created.headers.get('location')!, front), { headers });
      expect(read.status).toBe(200);
      expect(await read.json()).toMatchObject({ name: 'Balanced' });
    }
    // Log lines reach stdout within a second (batched).
    await sleep(1200);
    expect(Object.values(instances).map(petReads)).toEqual([3, 3]);
  });

  it('takes a stopping instance out of rotation with no request failing while it drains', async () => {
    const one = instances['app-1']!;
    one.process.kill('SIGTERM');
    const statuses: number[] = [];
    // Through app-1's grace (5 s) and past it: every request is answered by a ready instance.
    for (const until = performance.now() + 7000; performance.now() < until; await sleep(50)) {
      statuses.push(await fetch(`${front}/v1/pets`, { headers }).then((response) => response.status, () => 0));
    }
    expect(await one.exited).toBe(0);
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  }, 30_000);

  it('never routes to an instance that is alive but not ready (/healthz 200, /readyz 503)', async () => {
    // app-1 again on its port, but on a MongoDB address where nothing listens.
    const unready = spawnService({ env: { ...env, PORT: String(ports['app-1']), MONGODB_URL: `mongodb://127.0.0.1:${await pickFreePort()}/`, MONGODB_TIMEOUT_MS: '300' } });
    instances['app-1'] = unready;
    const base = `http://127.0.0.1:${portOf(await unready.logged('listening'))}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    // Long enough for the checks (every 2 s) to have seen it.
    await sleep(4500);
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await fetch(`${front}/v1/pets`, { headers })).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await sleep(1200);
    expect(unready.output()).not.toContain('"route":"/v1/pets"');
  }, 30_000);

  it("answers the API's own 503 when no instance is ready", async () => {
    const two = instances['app-2']!;
    two.process.kill('SIGTERM');
    let last: Response | undefined;
    for (const until = performance.now() + 8000; performance.now() < until && last?.status !== 503; await sleep(100)) {
      last = await fetch(`${front}/v1/pets`, { headers });
    }
    expect(last?.status).toBe(503);
    expect(last?.headers.get('content-type')).toBe('application/json');
    const { body, headers: apiHeaders } = toErrorResponse(new StorageUnavailable());
    expect(await last?.json()).toEqual(body);
    expect(last?.headers.get('retry-after')).toBe(apiHeaders['Retry-After']);
    expect(await two.exited).toBe(0);
  }, 30_000);
});
