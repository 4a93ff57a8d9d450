import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoopDelay } from '../../bench/src/server-probe.js';

// dist/ is built once for the whole run by test/support/build-global-setup.ts.
const PROBE = fileURLToPath(new URL('../../bench/dist/server-probe.js', import.meta.url));

function ask(child: ChildProcess, message: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as Record<string, unknown>));
    child.send(message);
  });
}

const loop = async (child: ChildProcess) => ((await ask(child, 'loop')) as { loop: LoopDelay }).loop;

// What the harness reads from every server around every run: its event-loop stalls and V8's mark-compacts.
describe("the bench's server probe", () => {
  let child: ChildProcess | undefined;
  afterEach(() => void child?.kill());

  it('counts the mark-compacts since the last reading, with the longest pause, and starts over', async () => {
    child = spawn(process.execPath, ['--expose-gc', '--import', PROBE, '-e', 'setInterval(() => undefined, 1000)'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    await loop(child);
    await ask(child, 'gc');
    await ask(child, 'gc');
    const after = await loop(child);
    expect(after.markCompacts).toBeGreaterThanOrEqual(2);
    expect(after.longestMarkCompactMs).toBeGreaterThan(0);
    const next = await loop(child);
    expect(next).toMatchObject({ markCompacts: 0, longestMarkCompactMs: 0 });
  });
});
