import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptCommand } from '../../bench/src/servers.js';
import { freshDbName, startMongoServer, type RunningMongo } from '../support/mongo-server.js';
import { portOf, ROOT, spawnService, type ServiceProcess } from '../support/service-process.js';
import { TEST_API_KEY } from '../support/test-config.js';
import { argsOf, execForm, readDockerfile } from './dockerfile.js';

const run = promisify(execFile);
const stages = readDockerfile();
const [build, final] = [stages[0]!, stages.at(-1)!];
const WORKDIR = argsOf(final, 'WORKDIR')[0]!;

/** The final stage's `npm ci ...` words (the first command of its RUN line). */
function finalInstall(): string[] {
  const install = argsOf(final, 'RUN').find((args) => args.startsWith('npm ci'));
  return install!.split('&&')[0]!.trim().split(/\s+/);
}

/** What the final stage's COPY lines take, as paths in the checkout: the build stage's /app/dist is our dist. */
function copiedPaths(): string[] {
  return argsOf(final, 'COPY').flatMap((args) => {
    const words = args.split(/\s+/);
    const fromBuild = words[0]!.startsWith('--from=');
    const sources = words.slice(fromBuild ? 1 : 0, -1);
    return fromBuild ? sources.map((source) => relative(argsOf(build, 'WORKDIR')[0]!, source)) : sources;
  });
}

/** CPU time (user and system) a running process has used, from /proc (Linux). */
function cpuMsOf(pid: number): number {
  // Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100/s).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The environment the image gives the service, plus a production deployment's settings. */
function productionEnv(mongo: RunningMongo): Record<string, string> {
  return {
    HOME: process.env.HOME ?? '/root',
    NODE_ENV: 'production',
    APP_ENV: 'production',
    MONGODB_URL: mongo.url,
    MONGODB_DB: freshDbName('production-build'),
    METRICS_PORT: '0',
    SHUTDOWN_GRACE_MS: '200',
  };
}

describe('the production build, installed and run as the Dockerfile does', () => {
  let dir: string;
  let mongo: RunningMongo;
  const started: ServiceProcess[] = [];

  beforeAll(async () => {
    // dist/ is current (the global setup built it), so this checks the script and rewrites nothing.
    await run('npm', ['run', '-s', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'production-build-'));
    for (const path of copiedPaths()) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    const [npm, ...args] = finalInstall();
    // The registry is not needed: the cache holds every package the lock names after the checkout's own install.
    const installed = performance.now();
    await run(npm!, [...args, '--offline'], { cwd: dir, env: { ...process.env, NODE_ENV: 'production' } });
    process.stderr.write(`[production-build] ${finalInstall().join(' ')}: ${Math.round(performance.now() - installed)} ms\n`);
    mongo = await startMongoServer();
  }, 120_000);

  afterAll(async () => {
    for (const child of started) child.process.kill('SIGKILL');
    await mongo?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('copies the lock, the build and the config, and installs production dependencies only', () => {
    expect(copiedPaths().sort()).toEqual(['config', 'dist', 'package-lock.json', 'package.json']);
    expect(existsSync(join(dir, 'dist/main.js'))).toBe(true);
    for (const kept of ['koa', 'mongodb', 'pino', 'zod']) expect(existsSync(join(dir, 'node_modules', kept))).toBe(true);
    for (const left of ['typescript', 'vitest', '@jongodb', 'mongodb-memory-server', 'pino-pretty']) {
      expect(existsSync(join(dir, 'node_modules', left))).toBe(false);
    }
  });

  it('starts with npm start (no tsc), answers a create and a get, and exits 0 on a SIGTERM sent to npm', async () => {
    const child = spawnService({ command: ['npm', 'start'], cwd: dir, env: productionEnv(mongo) });
    started.push(child);
    const listening = await child.logged('listening');
    const base = `http://127.0.0.1:${portOf(listening)}`;
    expect(listening).toMatchObject({ appEnv: 'production', storage: 'mongodb', docsUrl: `${base}/docs` });
    expect(listening.openapiUrl).toBe(`${base}/v1/openapi.json`);

    const headers = { Authorization: `Bearer ${TEST_API_KEY}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${base}/v1/pets`, { method: 'POST', headers, body: '{"name":"Shipped","categoryId":29}' });
    expect(created.status).toBe(201);
    const location = created.headers.get('location')!;
    const read = await fetch(new URL(location, base), { headers });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ name: 'Shipped', categoryId: 29 });

    const healthcheck = execForm(argsOf(final, 'HEALTHCHECK')[0]!.replace(/^.*?CMD\s+/, ''));
    await expect(run(healthcheck[0]!, healthcheck.slice(1), { cwd: dir, env: { PATH: process.env.PATH, PORT: String(portOf(listening)) } })).resolves.toBeDefined();

    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(await child.logged('stopped')).toMatchObject({ forced: false });
    // The service itself (not only npm) is gone: npm handed it the signal and waited for it.
    expect(() => process.kill(Number(listening.pid), 0)).toThrowError(/ESRCH/);
  });

  it('prints the addresses of /docs and the OpenAPI document beside a generated key, and both answer', async () => {
    const child = spawnService({ command: ['npm', 'start'], cwd: dir, env: { HOME: process.env.HOME ?? '/root', API_KEYS: '', SHUTDOWN_GRACE_MS: '0' } });
    started.push(child);
    const base = `http://127.0.0.1:${portOf(await child.logged('listening'))}`;
    // The key's message precedes the listening line on stdout; log lines (JSON) are not part of it.
    const output = child.output();
    const printed = output
      .slice(output.indexOf('No API_KEYS configured'))
      .split(/(?<=\n)/)
      .filter((line) => !line.startsWith('{'))
      .join('');
    expect(printed).toMatch(/^No API_KEYS configured: .*\n {2}\S{43}\nTry: curl .*\nAPI reference: (\S+) {2}\(OpenAPI document: (\S+)\)\n$/);
    const [, docs, openapi] = /API reference: (\S+) {2}\(OpenAPI document: (\S+)\)/.exec(printed)!;
    expect([docs, openapi]).toEqual([`${base}/docs`, `${base}/v1/openapi.json`]);
    expect((await fetch(docs!)).status).toBe(200);
    expect((await fetch(openapi!)).status).toBe(200);
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });

  it("starts again with the image's CMD within 3 s of CPU to ready, and stops on SIGTERM with exit code 0", async () => {
    const command = execForm(argsOf(final, 'CMD')[0]!);
    const spawned = performance.now();
    const child = spawnService({ command, cwd: dir, env: productionEnv(mongo) });
    started.push(child);
    await child.logged('listening');
    const readyMs = Math.round(performance.now() - spawned);
    const cpuMs = cpuMsOf(child.process.pid!);
    process.stderr.write(`[production-build] ${command.join(' ')}: ready in ${readyMs} ms, ${cpuMs} ms of CPU\n`);
    // The CPU it took, not the wall clock: during the full suite the 2 shared cores stretched 0.9 s to 3.5 s.
    expect(cpuMs).toBeLessThan(3000);
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
  });
});

describe('the Dockerfile', () => {
  it("runs package.json's start command as the process itself (exec form, no npm, no shell)", () => {
    const packageJson = join(ROOT, 'package.json');
    expect(execForm(argsOf(final, 'CMD')[0]!)).toEqual(startScriptCommand(packageJson));
    expect(argsOf(final, 'ENTRYPOINT')).toEqual([]);
  });

  it('builds with dev dependencies in one stage and ships a slim Node 24 stage with production ones, as a non-root user', () => {
    expect(stages).toHaveLength(2);
    expect(argsOf(build, 'RUN')).toContain('npm run build');
    expect(argsOf(build, 'RUN').find((args) => args.startsWith('npm ci'))).not.toMatch(/--omit=dev/);
    expect(final.image).toMatch(/^node:24(\.\d+)*-(bookworm-)?slim$/);
    expect(finalInstall()).toEqual(expect.arrayContaining(['npm', 'ci', '--omit=dev']));
    expect(argsOf(final, 'ENV')).toContain('NODE_ENV=production');
    expect(argsOf(final, 'USER')).toHaveLength(1);
    expect(argsOf(final, 'USER')[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(argsOf(final, 'HEALTHCHECK')[0]).toMatch(/\/healthz/);
    expect(WORKDIR).toBe('/app');
  });

  it('keeps local installs, build output, the history and env files out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', 'dist', '.git', '.env', '.env.*']));
  });
});
