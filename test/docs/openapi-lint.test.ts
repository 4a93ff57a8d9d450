import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';

/*
 * The served documents under both linters (Redocly `recommended`, Spectral `spectral:oas`), offline, at zero
 * errors and zero warnings; and a client generated from the interface document with openapi-typescript,
 * type-checked against small programs, so a document that breaks generated clients (a `default` that makes
 * an optional field required, say) fails the suite.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const SPECTRAL = path.join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
const OPENAPI_TYPESCRIPT = path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const OFFLINE_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** Runs a node script; a non-zero exit is returned, not thrown, so that the report can be shown. */
async function run(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [script, ...args], { cwd: ROOT, env: OFFLINE_ENV, maxBuffer: 16 << 20 }).then(
    (result) => ({ code: 0, stdout: result.stdout, stderr: result.stderr }),
    (error: { stdout?: string; stderr?: string; code?: number }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
  );
}

interface RedoclyReport {
  readonly totals: { readonly errors: number; readonly warnings: number };
  readonly problems: ReadonlyArray<{ readonly ruleId: string; readonly severity: string; readonly message: string; readonly location: ReadonlyArray<{ readonly pointer: string }> }>;
}

async function redoclyLint(file: string) {
  const { code, stdout } = await run(REDOCLY, ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json']);
  const report = JSON.parse(stdout) as RedoclyReport;
  return { code, report, problems: report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`) };
}

/** Every Spectral result at any severity (0 error, 1 warning, 2 info, 3 hint). */
async function spectralLint(file: string) {
  const { code, stdout } = await run(SPECTRAL, ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet', '--fail-severity', 'hint']);
  const results = JSON.parse(stdout.trim() === '' ? '[]' : stdout) as Array<{ code: string; severity: number; message: string; path: string[] }>;
  return { code, problems: results.map((r) => `${r.severity} ${r.code} at ${r.path.join('.')}: ${r.message}`) };
}

const DOCUMENTS = { interface: '/v1/openapi.json', operations: '/openapi-operations.json' } as const;

describe('the served OpenAPI documents under Redocly (recommended) and Spectral (spectral:oas)', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
    for (const [name, url] of Object.entries(DOCUMENTS)) {
      const response = await server.request('GET', url, { anonymous: true });
      expect(response.status).toBe(200);
      await writeFile(path.join(dir, `${name}.json`), response.text);
    }
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(DOCUMENTS))('%s document: Redocly finds no error and no warning', async (name) => {
    const { code, report, problems } = await redoclyLint(path.join(dir, `${name}.json`));
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(code).toBe(0);
  }, 30_000);

  it.each(Object.keys(DOCUMENTS))('%s document: Spectral finds nothing at any severity', async (name) => {
    const { code, problems } = await spectralLint(path.join(dir, `${name}.json`));
    expect(problems).toEqual([]);
    expect(code).toBe(0);
  }, 30_000);

  it('both linters fail a document that breaks the rules (they really run)', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: {} } } } }));
    const redocly = await redoclyLint(file);
    expect(redocly.code).not.toBe(0);
    expect(redocly.report.totals.errors).toBeGreaterThan(0);
    const spectral = await spectralLint(file);
    expect(spectral.code).not.toBe(0);
    expect(spectral.problems.length).toBeGreaterThan(0);
  }, 30_000);

  it('generates a client with openapi-typescript that a program type-checks against', async () => {
    const checked = await generateAndTypeCheck(path.join(dir, 'interface.json'), 'openapi-typescript', CLIENT_PROGRAM);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  }, 60_000);

  it('the generated types let a consumer create a pet without status and list with only limit', async () => {
    const checked = await generateAndTypeCheck(path.join(dir, 'interface.json'), 'openapi-typescript-consumer', CONSUMER_PROGRAM);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  }, 60_000);

  it('the same consumer fails to compile once a default makes NewPet.status required (the check can fail)', async () => {
    const document = JSON.parse(await readFile(path.join(dir, 'interface.json'), 'utf8')) as Record<string, any>;
    document.components.schemas.NewPet.properties.status.default = 'available';
    const file = path.join(dir, 'with-status-default.json');
    await writeFile(file, JSON.stringify(document));
    const checked = await generateAndTypeCheck(file, 'openapi-typescript-status-default', CONSUMER_PROGRAM);
    expect(checked.output).toMatch(/error TS2741: Property 'status' is missing/);
    expect(checked.code).not.toBe(0);
  }, 60_000);
});

/** Generates types from the document into test-output/<name>/ and type-checks program.ts against them. */
async function generateAndTypeCheck(document: string, name: string, program: string): Promise<{ code: number; output: string }> {
  const out = path.join(ROOT, 'test-output', name);
  await mkdir(out, { recursive: true });
  const generated = await run(OPENAPI_TYPESCRIPT, [document, '--output', path.join(out, 'schema.d.ts')]);
  expect(generated.stderr.replace(/\S*✨[^\n]*\n?/g, '')).not.toMatch(/error/i);
  expect(generated.code).toBe(0);
  await writeFile(path.join(out, 'program.ts'), program);
  await writeFile(path.join(out, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: true, types: [] },
    files: ['program.ts'],
  }));
  const checked = await run(TSC, ['-p', path.join(out, 'tsconfig.json')]);
  return { code: checked.code, output: checked.stdout + checked.stderr };
}

/** What a consumer writes against the generated types: every operation, its parameters, bodies and errors. */
const CLIENT_PROGRAM = `import type { components, operations, paths } from './schema.js';

type Pet = components['schemas']['Pet'];
type NewPet = components['schemas']['NewPet'];
type ErrorBody = components['schemas']['Error'];
type Status = components['schemas']['PetStatus'];

const status: Status = 'available';
const newPet: NewPet = { name: 'Rex', categoryId: 1, status };
const query: NonNullable<operations['listPets']['parameters']['query']> = { limit: 20, status, cursor: 'abc' };
const petId: operations['getPet']['parameters']['path']['petId'] = 1;
type Listed = paths['/pets']['get']['responses'][200]['content']['application/json'];
type Created = paths['/pets']['post']['responses'][201]['content']['application/json'];
type Body = NonNullable<paths['/pets']['post']['requestBody']>['content']['application/json'];
type Unauthorized = paths['/pets']['get']['responses'][401]['content']['application/json'];
const listed: Listed = [{ id: 1, name: 'Rex', categoryId: 1 }];
const created: Created = listed[0] as Pet;
const body: Body = newPet;
const failure: Unauthorized = { code: 'missing_api_key', message: 'no key', status: 401 } satisfies ErrorBody;
// @ts-expect-error: an unknown error code does not type-check
const wrong: ErrorBody = { code: 'oops', message: 'm', status: 400 };
export { body, created, failure, petId, query, wrong };
`;

/** A consumer written against the interface: status is optional on create, and a list needs only its limit. */
const CONSUMER_PROGRAM = `import type { operations } from './schema.js';

type NewPet = operations['createPet']['requestBody']['content']['application/json'];
type ListQuery = NonNullable<operations['listPets']['parameters']['query']>;

const newPet: NewPet = { name: 'Rex', categoryId: 1 };
const firstPage: ListQuery = { limit: 20 };
export { firstPage, newPet };
`;
