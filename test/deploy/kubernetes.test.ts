import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv, promisify } from 'node:util';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../src/config/load-config.js';
import { ROOT } from '../support/service-process.js';
import { ingressAdmits, type Connection } from './network-policy-admits.js';
import { restrictedViolations } from './pod-security-restricted.js';

type Json = Record<string, any>;

const FOLDER = 'deploy/kubernetes';
const SECRETS_EXAMPLE = `${FOLDER}/secrets.env.example`;

// Each kind the folder holds, with the schema of a current Kubernetes release (kubernetes-models: 1.34+).
const MODELS: Readonly<Record<string, new (data: Json) => { validate(): void }>> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
};

/** What `kubectl apply -f deploy/kubernetes/` applies: every .yaml, .yml and .json file of the folder, by name. */
const applied = Object.fromEntries(
  readdirSync(join(ROOT, FOLDER))
    .filter((file) => /\.(ya?ml|json)$/.test(file))
    .map((file) => [file, parseAllDocuments(readFileSync(join(ROOT, FOLDER, file), 'utf8')).map((document) => document.toJS() as Json)]),
);
const manifests = Object.values(applied).flat();
const byKind = (kind: string): Json => manifests.find((manifest) => manifest.kind === kind)!;

const validate = (manifest: Json) => {
  const Model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
  if (Model === undefined) throw new Error(`no schema here for ${manifest.apiVersion} ${manifest.kind}`);
  new Model(manifest).validate();
};

describe('the Kubernetes files (deploy/kubernetes/)', () => {
  const deployment = byKind('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const labels: Record<string, string> = deployment.spec.template.metadata.labels;
  const secretValues = parseEnv(readFileSync(join(ROOT, SECRETS_EXAMPLE), 'utf8'));
  const envList = Object.fromEntries((container.env as { name: string; value: string }[]).map(({ name, value }) => [name, value]));
  const config = loadConfig({ ...envList, ...secretValues });

  it('hold one document per file, each valid against the Kubernetes schema of its kind', () => {
    expect(Object.values(applied).map((documents) => documents.length)).toEqual(Object.values(applied).map(() => 1));
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual(['Deployment', 'NetworkPolicy', 'PodDisruptionBudget', 'Service']);
    for (const manifest of manifests) expect(() => validate(manifest), manifest.kind).not.toThrow();
  });

  it('are checked by a validator that refuses what the API server would', () => {
    const broken = structuredClone(deployment);
    broken.spec.template.spec.securityContext.seccompProfile.type = 'Runtimedefault';
    expect(() => validate(broken)).toThrow(/seccompProfile\/type must be equal to one of the allowed values/);
    broken.spec.template.spec.securityContext.seccompProfile.type = 'RuntimeDefault';
    broken.spec.template.spec.topologySpreadConstraints[0].maxSkew = '1';
    expect(() => validate(broken)).toThrow(/maxSkew must be integer/);
  });

  it('never write a Secret: the Deployment reads one created by command from a git-ignored file', async () => {
    expect(manifests.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'animal-store' } }]);
    expect(Object.keys(secretValues).sort()).toEqual(['API_KEYS', 'MONGODB_URL']);
    // kubectl's --from-env-file keeps quotes as part of the value.
    for (const value of Object.values(secretValues)) expect(value).not.toMatch(/^["']/);
    const ignored = await promisify(execFile)('git', ['check-ignore', `${FOLDER}/secrets.env`], { cwd: ROOT });
    expect(ignored.stdout.trim()).toBe(`${FOLDER}/secrets.env`);
    expect(envList).not.toHaveProperty('API_KEYS');
    expect(envList).not.toHaveProperty('MONGODB_URL');
  });

  it('are applied as docs/deploying.md says: the Secret by command from the git-ignored file, then the folder', () => {
    const page = readFileSync(join(ROOT, 'docs/deploying.md'), 'utf8');
    expect(page).toContain(`kubectl create secret generic animal-store --from-env-file=${FOLDER}/secrets.env`);
    expect(page).toContain(`kubectl apply -f ${FOLDER}/`);
    expect(page).not.toContain('secret.yaml');
  });

  it('make, with the Secret, a valid production config on MongoDB with metrics on their own port', () => {
    expect(config).toMatchObject({ appEnv: 'production', storage: 'mongodb', metricsPort: 9464 });
    expect(config.mongodb.url).toMatch(/^mongodb\+srv:\/\//);
    const portOf = (name: string) => container.ports.find((port: Json) => port.name === name)?.containerPort;
    expect([portOf('http'), portOf('metrics')]).toEqual([config.port, config.metricsPort]);
    expect(deployment.spec.template.metadata.annotations['prometheus.io/port']).toBe(String(config.metricsPort));
  });

  it('run pods that Pod Security "restricted" admits', () => {
    expect(restrictedViolations(pod)).toEqual([]);
    expect(pod.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    // The checker is not vacuous: the pod as it was before seccompProfile is refused.
    const { seccompProfile: _, ...withoutSeccomp } = pod.securityContext;
    expect(restrictedViolations({ ...pod, securityContext: withoutSeccomp })).toEqual([
      'animal-store: seccompProfile is not RuntimeDefault or Localhost',
    ]);
  });

  it('let anyone reach the API port and only the scraper reach the metrics port', () => {
    const policy = byKind('NetworkPolicy');
    expect(policy.spec.podSelector.matchLabels).toEqual(labels);
    expect(policy.spec.policyTypes).toContain('Ingress');
    const connect = (port: number, source: Partial<Connection>): boolean =>
      ingressAdmits(policy, {
        port,
        portName: container.ports.find((entry: Json) => entry.containerPort === port)?.name,
        namespaceLabels: { 'kubernetes.io/metadata.name': 'default' },
        podLabels: {},
        sameNamespace: false,
        ...source,
      });
    const prometheus = { namespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' }, podLabels: { 'app.kubernetes.io/name': 'prometheus' } };
    expect(connect(config.port, {})).toBe(true);
    expect(connect(config.port, { sameNamespace: true, podLabels: labels })).toBe(true);
    expect(connect(config.metricsPort!, prometheus)).toBe(true);
    expect(connect(config.metricsPort!, {})).toBe(false);
    expect(connect(config.metricsPort!, { sameNamespace: true, podLabels: labels })).toBe(false);
    expect(connect(config.metricsPort!, { ...prometheus, podLabels: {} })).toBe(false);
    expect(connect(config.metricsPort!, { ...prometheus, namespaceLabels: { 'kubernetes.io/metadata.name': 'default' } })).toBe(false);
    expect(connect(27017, {})).toBe(false);
  });

  it('spread the pods across nodes, and across zones where the cluster has them', () => {
    const spread = Object.fromEntries((pod.topologySpreadConstraints as Json[]).map((constraint) => [constraint.topologyKey, constraint]));
    expect(spread['kubernetes.io/hostname']).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } });
    expect(spread['topology.kubernetes.io/zone']).toMatchObject({ maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: labels } });
    expect(deployment.spec.replicas).toBeGreaterThan(1);
  });

  it('probe readiness on /readyz and liveness on /healthz, on the port the service listens on', () => {
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
  });

  it('give the shutdown more time than SHUTDOWN_TIMEOUT_MS, and the grace time to take the pod out of rotation', () => {
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(config.shutdownTimeoutMs);
    // The service's grace replaces a preStop pause; with both, the pod would wait twice.
    expect(container.lifecycle?.preStop).toBeUndefined();
    const { periodSeconds, failureThreshold } = container.readinessProbe;
    expect(periodSeconds * failureThreshold * 1000).toBeLessThan(config.shutdownGraceMs);
  });

  it('select their pods in the Service, the PodDisruptionBudget and the NetworkPolicy; the budget leaves most up', () => {
    const service = byKind('Service');
    const budget = byKind('PodDisruptionBudget');
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(service.spec.selector).toEqual(labels);
    expect(budget.spec.selector.matchLabels).toEqual(labels);
    expect(service.spec.ports.map((port: Json) => port.targetPort)).toEqual(['http']);
    expect(budget.spec.maxUnavailable).toBeLessThan(deployment.spec.replicas / 2);
  });
});
