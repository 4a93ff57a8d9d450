import { appendFileSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portOf, ROOT, spawnService, type ServiceProcess } from './support/service-process.js';

/** The error code of a connection attempt to the port on loopback (undefined: it connected). */
function connectError(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(undefined)).once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    socket.once('connect', () => socket.destroy());
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

const listeningLines = (dev: ServiceProcess) => dev.lines().filter((line) => line.msg === 'listening');

describe('npm run dev', () => {
  // A copy of the checkout (dist/ included, so the first build has nothing to do), where the test may change a source.
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dev-script-'));
    for (const path of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'config', 'scripts', 'dist']) {
      cpSync(join(ROOT, path), join(dir, path), { recursive: true, preserveTimestamps: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rebuilds and restarts on a change under src/, and stops on SIGTERM to npm with nothing left running', async () => {
    const dev = spawnService({ command: ['npm', 'run', 'dev'], cwd: dir, detached: true, env: { HOME: process.env.HOME ?? '/root' } });
    const first = await dev.logged('listening');

    // A line only the rebuilt service writes (a JSON line, as the log's).
    appendFileSync(join(dir, 'src/main.ts'), `\nprocess.stdout.write('{"msg":"rebuilt"}\\n');\n`);
    await dev.logged('rebuilt');
    await until(() => listeningLines(dev).length === 2);
    const second = listeningLines(dev)[1]!;
    expect(second.pid).not.toBe(first.pid);
    expect(await connectError(portOf(first))).toBe('ECONNREFUSED');
    expect(await connectError(portOf(second))).toBeUndefined();

    // As an IDE's stop button or `timeout` do: to npm's own process only.
    process.kill(dev.process.pid!, 'SIGTERM');
    expect(await dev.exited).toBe(0);
    expect(dev.lines().filter((line) => line.msg === 'stopped')).toHaveLength(2);
    expect(await connectError(portOf(second))).toBe('ECONNREFUSED');
    // No process is left in the group npm led: neither node --watch nor the service.
    expect(() => process.kill(-dev.process.pid!, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  }, 120_000);
});
