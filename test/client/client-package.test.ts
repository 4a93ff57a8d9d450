import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { TEST_API_KEY } from '../support/test-config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_SRC = join(ROOT, 'client/src');
const run = promisify(execFile);

describe('the client package', () => {
  it('imports nothing but its own files and lossless-json, so it runs in browsers as in Node', () => {
    const files = readdirSync(CLIENT_SRC).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const text = readFileSync(join(CLIENT_SRC, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]!);
      for (const specifier of specifiers) {
        expect(/^\.\/[\w-]+\.js$/.test(specifier) || specifier === 'lossless-json', `${file} imports ${specifier}`).toBe(true);
      }
      expect(text, `${file} uses a Node global`).not.toMatch(/\b(?:process|Buffer|require)\b[.(]/);
    }
  });

  // Built once, in the memory project only: both projects running it would write client/dist at once.
  describe.runIf(inject('storage') === 'memory')('built with npm run build -w client', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer();
      await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'client/tsconfig.json'], { cwd: ROOT });
    }, 60_000);
    afterAll(() => server.stop());

    it('is importable by name from plain Node ESM and round-trips int64 against the service', async () => {
      const program = `
        import { AnimalStoreClient, AnimalStoreError, ERROR_CODES } from '@animal-store/client';
        const client = new AnimalStoreClient({ baseUrl: process.env.BASE_URL, apiKey: process.env.API_KEY });
        const pet = await client.createPet({ name: 'packaged', categoryId: 9223372036854775807n });
        const again = await client.getPet(pet.id);
        const missing = await client.getPet(-9223372036854775808n).catch((error) => error);
        console.log(JSON.stringify({
          categoryId: String(again.categoryId), typeofId: typeof pet.id,
          error: missing instanceof AnimalStoreError ? missing.code : 'not typed', codes: ERROR_CODES.length,
        }));`;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program], {
        cwd: ROOT,
        env: { ...process.env, BASE_URL: `${server.url}/v1`, API_KEY: TEST_API_KEY },
      });
      expect(JSON.parse(stdout)).toEqual({ categoryId: '9223372036854775807', typeofId: 'bigint', error: 'pet_not_found', codes: expect.any(Number) });
    });

    it('declares getPet deprecated with its sunset date for editors and type checkers', () => {
      const declarations = readFileSync(join(ROOT, 'client/dist/animal-store-client.d.ts'), 'utf8');
      const getPet = declarations.slice(0, declarations.indexOf('getPet(id: bigint'));
      expect(getPet.slice(getPet.lastIndexOf('/**'))).toMatch(/@deprecated[^]*5 December 2030[^]*listPets/);
    });
  });
});
