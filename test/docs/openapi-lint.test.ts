import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: ReadonlyArray<{ readonly ruleId: string; readonly severity: string; readonly message: string; readonly location: ReadonlyArray<{ readonly pointer: string }> }>;
}

/** Runs the pinned @redocly/cli on a file with redocly.yaml (rules `recommended`), offline. */
async function redoclyLint(file: string): Promise<{ exitCode: number; report: LintReport }> {
  const run = promisify(execFile)(process.execPath, [REDOCLY, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json'], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
  });
  // A lint failure exits 1 with the report on stdout; keep it to show the problems.
  const { stdout, code } = await run.then(
    (result) => ({ stdout: result.stdout, code: 0 }),
    (error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? '', code: error.code ?? -1 }),
  );
  return { exitCode: code, report: JSON.parse(stdout) as LintReport };
}

describe('the served OpenAPI document under @redocly/cli lint (recommended)', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('has no errors and no warnings', async () => {
    const response = await server.request('GET', '/v1/openapi.json', { anonymous: true });
    expect(response.status).toBe(200);
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, response.text);

    const { exitCode, report } = await redoclyLint(file);

    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(exitCode).toBe(0);
  }, 30_000);

  it('fails a document that breaks the rules (the linter really runs)', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: {} } } } }));

    const { exitCode, report } = await redoclyLint(file);

    expect(exitCode).not.toBe(0);
    expect(report.totals.errors).toBeGreaterThan(0);
  }, 30_000);
});
