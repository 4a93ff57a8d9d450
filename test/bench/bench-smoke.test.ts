import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const SERVERS = ['service', 'node:http', 'koa', 'koa-features', 'fastify'];

interface Run { readonly requests: number; readonly errors: number; readonly non2xx: number }
interface Figures {
  readonly workloads: readonly { workload: string; skipped?: string; servers: Record<string, Run & { rounds: readonly { pid: number }[] }> }[];
  readonly halfPeak: readonly { workload: string; skipped?: string; rate: number; servers: Record<string, Run & { p99: number; machineLoopMaxMs: number; rounds: readonly (Run & { pid: number; p99: number; machineLoop: { maxMs: number } | null })[] }> }[];
}

// A tiny run of `npm run bench`: it checks that the harness works end to end, never how fast anything is.
describe('npm run bench (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const jsonFile = join(dir, 'figures.json');
  let stdout = '';
  let figures: Figures;

  beforeAll(async () => {
    // dist/ is built once for the whole run by test/support/build-global-setup.ts.
    const args = ['bench/dist/run.js', '--pets', '200', '--rounds', '2', '--duration', '0.1', '--warmup', '0', '--startups', '0', '--connections', '4', '--json', jsonFile];
    ({ stdout } = await run(process.execPath, args, { cwd: root }));
    figures = JSON.parse(readFileSync(jsonFile, 'utf8')) as Figures;
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A 0.1 s peak run on a busy machine may see no response complete; the half-peak runs always send at least one.
  it('measures every workload at peak on the service and the three yardsticks with no errors and no non-2xx', () => {
    expect(figures.workloads.map((w) => w.workload)).toHaveLength(5);
    for (const { workload, skipped, servers } of figures.workloads) {
      expect({ workload, skipped }).toEqual({ workload, skipped: undefined });
      expect(Object.keys(servers).sort()).toEqual([...SERVERS].sort());
      for (const [name, run] of Object.entries(servers)) {
        expect({ workload, name, errors: run.errors, non2xx: run.non2xx }).toEqual({ workload, name, errors: 0, non2xx: 0 });
      }
    }
  });

  it('runs each peak round on fresh processes of every server, and half peak on the last ones', () => {
    for (const { servers } of figures.workloads) {
      for (const run of Object.values(servers)) expect(new Set(run.rounds.map((round) => round.pid)).size).toBe(2);
    }
    const lastPids = new Set(figures.workloads.flatMap(({ servers }) => Object.values(servers).map((run) => run.rounds[1]!.pid)));
    for (const { servers } of figures.halfPeak) {
      for (const run of Object.values(servers)) for (const round of run.rounds) expect(lastPids.has(round.pid)).toBe(true);
    }
  });

  it('offers every workload to every server at half the service peak, once a round, each answering 2xx', () => {
    expect(figures.halfPeak).toHaveLength(5);
    for (const { workload, rate, servers } of figures.halfPeak) {
      expect(rate).toBeGreaterThan(0);
      expect(Object.keys(servers).sort()).toEqual([...SERVERS].sort());
      for (const [name, run] of Object.entries(servers)) {
        expect(run.rounds).toHaveLength(2);
        for (const round of run.rounds) {
          expect({ workload, name, errors: round.errors, non2xx: round.non2xx }).toEqual({ workload, name, errors: 0, non2xx: 0 });
          expect(round.requests).toBeGreaterThan(0);
        }
        // The figure reported is the median round's (the higher of two), not a mix of rounds.
        expect(run.p99).toBe(Math.max(...run.rounds.map((round) => round.p99)));
        // The idle process on the servers' CPU was read around every run: the machine's stalls beside the server's.
        for (const round of run.rounds) expect(round.machineLoop?.maxMs).toBeGreaterThanOrEqual(0);
        expect(run.machineLoopMaxMs).toBe(Math.max(...run.rounds.map((round) => round.machineLoop!.maxMs)));
      }
    }
  });

  it('prints the ratio, peak, half-peak, event-loop, start-up and MongoDB tables', () => {
    expect(stdout).toContain('| Workload | Service req/s | req/s vs node:http | req/s vs plain Koa | req/s vs Koa + features | req/s vs Fastify |');
    expect(stdout).toContain('| GET /v1/pets?limit=20 | Fastify |');
    expect(stdout).toContain('| Workload | Offered req/s | Server | Answered req/s | p50 / p99 / max ms | p99 of each round ms |');
    expect(stdout).toContain('| Server | Longest event-loop stall, peak runs (ms) | Idle process on the same CPU, same runs (ms) |');
    expect(stdout).toContain('| Half-peak rounds with a mark-compact |');
    expect(stdout).toContain('| service |');
    // The smoke run is on memory storage: no MongoDB figure is printed as if it were one.
    expect(stdout).toContain('### MongoDB round trips (peak runs)\nn/a: the service ran on memory storage');
  });
});

// What one feature costs: this build again as the baseline, with the request log off. It logs no listening
// line, so the harness must find it on the port it chose and wait for /readyz.
describe('npm run bench --baseline dist --baseline-env (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const jsonFile = join(dir, 'figures.json');
  let stdout = '';
  let stderr = '';
  let figures: Figures;

  beforeAll(async () => {
    const args = ['bench/dist/run.js', '--pets', '50', '--rounds', '1', '--duration', '0.2', '--warmup', '0', '--startups', '0', '--connections', '2'];
    const experiment = ['--servers', 'node:http', '--workloads', 'get', '--no-half-peak', '--baseline', 'dist', '--baseline-env', 'LOG_LEVEL=warn'];
    const output = await run(process.execPath, [...args, ...experiment, '--json', jsonFile], { cwd: root });
    // Progress and the EXPERIMENT warning go to stderr, the tables to stdout.
    stdout = output.stdout;
    stderr = output.stderr;
    figures = JSON.parse(readFileSync(jsonFile, 'utf8')) as Figures;
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says the run is an experiment and which settings of the baseline differ', () => {
    expect(stderr).toContain(`EXPERIMENT: the baseline build's settings differ: {"LOG_LEVEL":"warn"}`);
  });

  it('measures the baseline build beside the service, though it never logs that it listens', () => {
    const [get] = figures.workloads;
    expect(Object.keys(get!.servers).sort()).toEqual(['baseline', 'node:http', 'service']);
    for (const [name, { errors, non2xx }] of Object.entries(get!.servers)) expect({ name, errors, non2xx }).toEqual({ name, errors: 0, non2xx: 0 });
    // No listening line: the start-up table says so rather than inventing a figure; ready is still timed.
    expect(stdout).toMatch(/\| baseline build \| - \| \d+ \|/);
  });

  it('refuses --baseline-env without --baseline', async () => {
    const args = ['bench/dist/run.js', '--baseline-env', 'LOG_LEVEL=warn'];
    await expect(run(process.execPath, args, { cwd: root })).rejects.toThrow(/--baseline-env needs --baseline/);
  });
});

// The MongoDB path: the service on MongoDB storage beside plain Koa + the mongodb driver on the same server.
describe('npm run bench --storage mongodb (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const jsonFile = join(dir, 'figures.json');
  let stdout = '';
  let figures: Figures & { workloads: readonly { servers: Record<string, Run & { mongoCommands?: Record<string, number> | null; mongoServerCpuUsPerReq: number }> }[] };

  beforeAll(async () => {
    const args = ['bench/dist/run.js', '--storage', 'mongodb', '--servers', 'koa-mongodb', '--workloads', 'list,get,create,create-keyed', '--pets', '30', '--rounds', '1',
      '--duration', '0.3', '--warmup', '0', '--startups', '0', '--connections', '2', '--no-half-peak', '--json', jsonFile];
    ({ stdout } = await run(process.execPath, args, { cwd: root }));
    figures = JSON.parse(readFileSync(jsonFile, 'utf8')) as typeof figures;
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures the service and the MongoDB yardstick with no errors, each with its MongoDB commands and the server\'s CPU', () => {
    for (const { servers } of figures.workloads) {
      expect(Object.keys(servers).sort()).toEqual(['koa-mongodb', 'service']);
      for (const [name, run] of Object.entries(servers)) {
        expect({ name, errors: run.errors, non2xx: run.non2xx }).toEqual({ name, errors: 0, non2xx: 0 });
        expect(run.mongoCommands).toEqual(expect.any(Object));
        expect(run.mongoServerCpuUsPerReq).toBeGreaterThanOrEqual(0);
      }
    }
    const [list, get, create, keyed] = figures.workloads;
    // The yardstick's own count: one find per read, the counter and the insert per create.
    const perRequest = (run: Run & { mongoCommands?: Record<string, number> | null }) =>
      Object.fromEntries(Object.entries(run.mongoCommands!).filter(([, n]) => n > 0).map(([command, n]) => [command, n / run.requests]));
    expect(perRequest(list!.servers['koa-mongodb']!)).toEqual({ find: 1 });
    expect(perRequest(get!.servers['koa-mongodb']!)).toEqual({ find: 1 });
    // One findAndModify and one insert per create, and one more of each when jongodb handed two concurrent $inc the
    // same id (the yardstick then takes the next: 1.04 of each per create in one run; never on mongod).
    const yardstickCreate = perRequest(create!.servers['koa-mongodb']!);
    expect(Object.keys(yardstickCreate).sort()).toEqual(['findAndModify', 'insert']);
    expect(yardstickCreate.findAndModify).toBe(yardstickCreate.insert);
    expect(yardstickCreate.insert).toBeGreaterThanOrEqual(1);
    expect(yardstickCreate.insert).toBeLessThan(1.5);
    // A fresh Idempotency-Key per create costs the service no round trip of its own: the key is written with the
    // pet. Creates that arrive in one turn share their findAndModify and insert (the adapter's batches), so at most
    // one of each per create.
    const keyedCreate = perRequest(keyed!.servers.service!);
    for (const command of ['findAndModify', 'insert']) {
      expect({ command, perCreate: keyedCreate[command] }).toEqual({ command, perCreate: expect.any(Number) });
      expect(keyedCreate[command]).toBeGreaterThan(0);
      expect(keyedCreate[command]).toBeLessThanOrEqual(1);
    }
    expect(stdout).toContain('| Workload | Service req/s | req/s vs Koa + mongodb | Service CPU µs/req | Koa + mongodb CPU µs/req | CPU vs Koa + mongodb |');
    expect(stdout).toContain('| Workload | service: MongoDB commands per request (by command) | service: MongoDB server CPU µs/req | Koa + mongodb: MongoDB commands per request (by command) |');
  });

  it('refuses the MongoDB yardstick without --storage mongodb', async () => {
    await expect(run(process.execPath, ['bench/dist/run.js', '--servers', 'koa-mongodb'], { cwd: root })).rejects.toThrow(/koa-mongodb needs --storage mongodb/);
  });
});
