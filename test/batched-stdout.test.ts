import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchedStdout } from '../src/batched-stdout.js';

describe('BatchedStdout', () => {
  const opened: number[] = [];
  const fileDestination = (batchBytes?: number) => {
    const path = join(mkdtempSync(join(tmpdir(), 'batched-stdout-')), 'log');
    const fd = openSync(path, 'w');
    opened.push(fd);
    return { path, out: new BatchedStdout(fd, batchBytes), read: () => readFileSync(path, 'utf8') };
  };
  const flushed = (out: BatchedStdout) => new Promise<void>((resolve, reject) => out.flush((error) => (error ? reject(error) : resolve())));
  afterEach(() => {
    for (const fd of opened.splice(0)) closeSync(fd);
  });

  it('keeps lines below a batch until flushed, then writes them complete and in order', async () => {
    const { out, read } = fileDestination(4096);
    out.write('{"n":1}\n');
    out.write('{"n":2}\n');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(read()).toBe('');
    await flushed(out);
    expect(read()).toBe('{"n":1}\n{"n":2}\n');
  });

  it('writes a burst far larger than a batch, every line once, in order', async () => {
    const { out, read } = fileDestination(256);
    const lines = Array.from({ length: 5000 }, (_, n) => `{"n":${n},"text":"é ✓"}\n`);
    for (const line of lines) out.write(line);
    await flushed(out);
    expect(read()).toBe(lines.join(''));
    expect(out.droppedLines).toBe(0);
  });

  it('writes what is queued synchronously (as on exit)', () => {
    const { out, read } = fileDestination(4096);
    out.write('{"last":true}\n');
    out.flushSync();
    expect(read()).toBe('{"last":true}\n');
  });

  it('never throws into the service when the destination is gone: the lines are counted as dropped', async () => {
    const { out } = fileDestination(16);
    closeSync(opened.pop()!);
    expect(() => out.write('{"lost":1}\n{"lost":2}\n')).not.toThrow();
    await flushed(out);
    expect(() => out.flushSync()).not.toThrow();
    expect(out.droppedLines).toBe(1);
  });
});
