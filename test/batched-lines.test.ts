import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchedLines, type BufferDestination } from '../src/batched-lines.js';

/* The production log destination, over pino's own (sonic-boom, buffer mode) writing a real file. */

function destinationToFile(batchBytes: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'batched-lines-')), 'out.log');
  const out = pino.destination({ dest: file, sync: true, contentMode: 'buffer' }) as unknown as BufferDestination;
  // A flush interval that never fires during a test: batches leave when full or flushed.
  return { file, lines: new BatchedLines(out, batchBytes, 60_000) };
}

const flushed = (lines: BatchedLines) => new Promise<void>((resolve, reject) => lines.flush((error) => (error ? reject(error) : resolve())));

describe('BatchedLines', () => {
  it('writes every line whole and in order, across batch boundaries and in any script', async () => {
    const { file, lines } = destinationToFile(256);
    const written = Array.from({ length: 200 }, (_, n) => `{"n":${n},"name":"${'Rex é 猫 🐈 '.repeat(n % 5)}"}\n`);
    for (const line of written) lines.write(line);
    await flushed(lines);
    expect(readFileSync(file, 'utf8')).toBe(written.join(''));
  });

  it('holds lines until a batch fills, then writes the batch', async () => {
    const { file, lines } = destinationToFile(1024);
    lines.write('{"a":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('');
    const filler = `{"b":"${'x'.repeat(300)}"}\n`;
    lines.write(filler);
    lines.write(filler);
    expect(readFileSync(file, 'utf8')).toBe(`{"a":1}\n${filler}`);
    await flushed(lines);
    expect(readFileSync(file, 'utf8')).toBe(`{"a":1}\n${filler}${filler}`);
  });

  it('writes a line longer than a whole batch on its own, after the lines before it', async () => {
    const { file, lines } = destinationToFile(64);
    const long = `{"long":"${'y'.repeat(500)}"}\n`;
    lines.write('{"first":1}\n');
    lines.write(long);
    lines.write('{"last":1}\n');
    await flushed(lines);
    expect(readFileSync(file, 'utf8')).toBe(`{"first":1}\n${long}{"last":1}\n`);
  });
});
