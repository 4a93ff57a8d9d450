import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BatchedLines } from '../src/telemetry/batched-lines.js';

/* The production log destination, over pino's own (sonic-boom) writing a real file. */

function destinationToFile(batchChars: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'batched-lines-')), 'out.log');
  // A flush interval that never fires during a test: batches leave when full or flushed.
  return { file, lines: new BatchedLines(pino.destination({ dest: file, sync: true }), batchChars, 60_000) };
}

const flushed = (lines: BatchedLines) => new Promise<void>((resolve, reject) => lines.flush((error) => (error ? reject(error) : resolve())));

describe('BatchedLines', () => {
  it('writes every line whole and in order, across batches and in any script', async () => {
    const { file, lines } = destinationToFile(256);
    const written = Array.from({ length: 200 }, (_, n) => `{"n":${n},"name":"${'Rex é 猫 🐈 '.repeat(n % 5)}"}\n`);
    for (const line of written) lines.write(line);
    await flushed(lines);
    expect(readFileSync(file, 'utf8')).toBe(written.join(''));
  });

  it('holds lines until a batch fills, then writes them together', async () => {
    const { file, lines } = destinationToFile(1024);
    const filler = `{"b":"${'x'.repeat(600)}"}\n`;
    lines.write('{"a":1}\n');
    lines.write(filler);
    expect(readFileSync(file, 'utf8')).toBe('');
    lines.write(filler);
    expect(readFileSync(file, 'utf8')).toBe(`{"a":1}\n${filler}${filler}`);
    lines.write('{"c":1}\n');
    await flushed(lines);
    expect(readFileSync(file, 'utf8')).toBe(`{"a":1}\n${filler}${filler}{"c":1}\n`);
  });
});
