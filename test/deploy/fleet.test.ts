import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { ROOT } from '../support/service-process.js';

const run = promisify(execFile);

type Json = Record<string, any>;

const SECRETS_EXAMPLE = 'deploy/compose/secrets.env.example';

describe('compose.yaml', () => {
  let services: Json;

  beforeAll(async () => {
    // Debian's docker-compose (v1.29); .ci/run installs it. The env file is the example: the real one is never committed.
    const env = { ...process.env, ANIMAL_STORE_SECRETS: SECRETS_EXAMPLE };
    await run('docker-compose', ['config', '-q'], { cwd: ROOT, env });
    services = (parse((await run('docker-compose', ['config'], { cwd: ROOT, env })).stdout) as Json).services as Json;
  }, 30_000);

  it('passes docker-compose config, and fails it when the secrets file is missing', async () => {
    const env = { ...process.env, ANIMAL_STORE_SECRETS: 'deploy/compose/no-such.env' };
    await expect(run('docker-compose', ['config', '-q'], { cwd: ROOT, env })).rejects.toThrow(/no-such\.env/);
  });

  it('runs a three-member replica set, initiated by a one-shot service that every instance waits for', () => {
    const members = Object.keys(services).filter((name) => services[name].command?.includes('--replSet'));
    expect(members).toHaveLength(3);
    for (const name of members) expect(services[name].command.join(' ')).toMatch(/--replSet rs0\b/);
    const init = services['mongo-init'];
    expect(init.restart).toBe('no');
    const script = init.command.join(' ');
    expect(script).toMatch(/rs\.initiate\(/);
    for (const name of members) expect(script).toContain(`host: "${name}:27017"`);
    for (const name of members) expect(init.depends_on[name].condition).toBe('service_healthy');
  });

  it('starts two or more instances of the image, on the replica set, with valid staging or production settings', () => {
    const instances = Object.keys(services).filter((name) => services[name].build !== undefined);
    expect(instances.length).toBeGreaterThanOrEqual(2);
    for (const name of instances) {
      const service = services[name];
      expect(service.depends_on['mongo-init'].condition).toBe('service_completed_successfully');
      const env = service.environment as Record<string, string>;
      expect(['staging', 'production']).toContain(env.APP_ENV);
      expect(env.MONGODB_URL).toMatch(/^mongodb:\/\/mongo-0:27017,mongo-1:27017,mongo-2:27017\/\?replicaSet=rs0$/);
      // The keys come from the env file, which docker-compose config has merged in.
      expect(env.API_KEYS).toBe(readFileSync(join(ROOT, SECRETS_EXAMPLE), 'utf8').match(/^API_KEYS=(.*)$/m)![1]);
      const config = loadConfig(env);
      expect(config.storage).toBe('mongodb');
      expect(parseDuration(service.stop_grace_period)).toBeGreaterThan(config.shutdownTimeoutMs);
    }
  });

  it('puts HAProxy in front, routing to every instance only while its /readyz answers 200', () => {
    const lb = services.lb;
    expect(lb.image).toMatch(/^haproxy:/);
    const cfg = readFileSync(join(ROOT, 'deploy/compose/haproxy.cfg'), 'utf8');
    expect(cfg).toMatch(/http-check send meth GET uri \/readyz\n/);
    expect(cfg).toMatch(/http-check expect status 200\n/);
    const instances = Object.keys(services).filter((name) => services[name].build !== undefined);
    for (const name of instances) expect(cfg).toMatch(new RegExp(`^\\s*server ${name} ${name}:3000 check$`, 'm'));
    expect(lb.depends_on).toEqual(expect.objectContaining(Object.fromEntries(instances.map((name) => [name, expect.anything()]))));
    // The balancer's address is the one proxy the instances believe.
    const address = lb.networks.frontend.ipv4_address;
    for (const name of instances) expect(services[name].environment.TRUSTED_PROXIES).toBe(address);
    // Its detection (checks every `inter`, down after `fall` failures) fits in the instances' shutdown grace.
    const [, inter, fall] = /default-server inter (\d+)s fall (\d+)/.exec(cfg)!;
    for (const name of instances) expect(Number(inter) * Number(fall) * 1000).toBeLessThan(loadConfig(services[name].environment).shutdownGraceMs);
  });
});

/** docker-compose's durations as it prints them (`15s`, `1m30s`), in ms. */
function parseDuration(text: string): number {
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)(ms|s|m|h)/g)) {
    ms += Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return ms;
}
