import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Tests that run the built service (shutdown, bench smoke) need dist/ current. Building once here, before
// any test file starts, keeps two files from compiling into the same directory at the same time.
export default async function buildOnce(): Promise<void> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const tsc = (project: string) => promisify(execFile)(process.execPath, ['node_modules/typescript/bin/tsc', '-p', project], { cwd: root });
  await tsc('tsconfig.build.json');
  await tsc('bench/tsconfig.json');
}
