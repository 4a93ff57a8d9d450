import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { ROOT } from '../support/service-process.js';

const run = promisify(execFile);

type Json = Record<string, any>;

const readYaml = (path: string): Json => parse(readFileSync(join(ROOT, path), 'utf8')) as Json;
const envList = (env: readonly { name: string; value: string }[]) => Object.fromEntries(env.map(({ name, value }) => [name, value]));
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

describe('the Kubernetes example (deploy/kubernetes/)', () => {
  const deployment = readYaml('deploy/kubernetes/deployment.yaml');
  const service = readYaml('deploy/kubernetes/service.yaml');
  const budget = readYaml('deploy/kubernetes/pod-disruption-budget.yaml');
  const secret = readYaml('deploy/kubernetes/secret.yaml');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const labels = deployment.spec.template.metadata.labels;
  const env = { ...envList(container.env), ...secret.stringData } as Record<string, string>;
  const config = loadConfig(env);

  it('is one document per file, each of the kind its name says', () => {
    for (const file of ['deployment', 'service', 'pod-disruption-budget', 'secret']) {
      expect(parseAllDocuments(readFileSync(join(ROOT, `deploy/kubernetes/${file}.yaml`), 'utf8'))).toHaveLength(1);
    }
    expect([deployment.kind, service.kind, budget.kind, secret.kind]).toEqual(['Deployment', 'Service', 'PodDisruptionBudget', 'Secret']);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the port the service listens on', () => {
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    const http = container.ports.find((port: Json) => port.name === container.readinessProbe.httpGet.port);
    expect(http.containerPort).toBe(config.port);
    expect(container.livenessProbe.httpGet.port).toBe('http');
  });

  it('gives the shutdown more time than SHUTDOWN_TIMEOUT_MS, and the grace time to take the pod out of rotation', () => {
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownTimeoutMs);
    // The service's grace replaces a preStop pause; with both, the pod would wait twice.
    expect(container.lifecycle?.preStop).toBeUndefined();
    const { periodSeconds, failureThreshold } = container.readinessProbe;
    expect(periodSeconds * failureThreshold * 1000).toBeLessThan(config.shutdownGraceMs);
  });

  it('takes the keys and MONGODB_URL from the Secret, and they make a valid production config on MongoDB', () => {
    expect(container.envFrom).toContainEqual({ secretRef: { name: secret.metadata.name } });
    expect(Object.keys(secret.stringData).sort()).toEqual(['API_KEYS', 'MONGODB_URL']);
    expect(envList(container.env)).not.toHaveProperty('MONGODB_URL');
    expect(config).toMatchObject({ appEnv: 'production', storage: 'mongodb' });
    expect(config.mongodb.url).toMatch(/^mongodb\+srv:\/\//);
  });

  it('selects its pods in the Service and the PodDisruptionBudget, which leaves most of them up', () => {
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(service.spec.selector).toEqual(labels);
    expect(budget.spec.selector.matchLabels).toEqual(labels);
    expect(service.spec.ports[0].targetPort).toBe('http');
    expect(budget.spec.maxUnavailable).toBeLessThan(deployment.spec.replicas / 2);
  });

  it('runs as a non-root user that cannot escalate', () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).not.toBe(0);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
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
