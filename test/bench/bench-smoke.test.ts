import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url);

interface Summary { readonly errors: number; readonly non2xx: number; readonly rounds: readonly { requests: number }[] }
interface Figures { readonly workloads: readonly { workload: string; skipped?: string; service?: Summary; yardstick?: Summary }[] }

// A tiny run of `npm run bench`: it checks that the harness works end to end, never how fast anything is.
describe('npm run bench (smoke)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const jsonFile = join(dir, 'figures.json');
  let stdout = '';

  beforeAll(async () => {
    // dist/ is built once for the whole run by test/support/build-global-setup.ts.
    const args = ['dist/bench/run.js', '--pets', '200', '--rounds', '1', '--duration', '0.5', '--warmup', '0', '--json', jsonFile];
    ({ stdout } = await run(process.execPath, args, { cwd: root }));
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('measures every workload on both servers with no errors and no non-2xx responses', () => {
    const { workloads } = JSON.parse(readFileSync(jsonFile, 'utf8')) as Figures;
    expect(workloads.map((w) => w.workload)).toHaveLength(5);
    for (const { workload, skipped, service, yardstick } of workloads) {
      // Only the deep page may be skipped, and only until the service sends Link rel="next".
      if (skipped !== undefined) {
        expect(workload).toMatch(/next page/);
        continue;
      }
      for (const summary of [service!, yardstick!]) {
        expect({ workload, errors: summary.errors, non2xx: summary.non2xx }).toEqual({ workload, errors: 0, non2xx: 0 });
        expect(summary.rounds[0]!.requests).toBeGreaterThan(0);
      }
    }
  });

  it('prints the markdown table', () => {
    expect(stdout).toContain('| Workload | Service req/s | Yardstick req/s | Ratio |');
    expect(stdout).toContain('| GET /v1/pets?limit=20 |');
  });
});
