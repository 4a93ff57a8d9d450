import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(?\s*['"]([^'"]+)['"]/g)].map(
    (match) => match[1] ?? match[2]!,
  );
}

describe('the architecture', () => {
  it.each(['core', 'ports'])('keeps src/%s free of frameworks, drivers, adapters and Node I/O', (layer) => {
    const files = sourceFiles(join(SRC, layer));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      for (const spec of importsOf(file)) {
        const allowed = spec.startsWith('./') || spec.startsWith('../core/') || spec.startsWith('../ports/');
        expect(allowed, `${file} imports ${spec}`).toBe(true);
      }
      expect(readFileSync(file, 'utf8'), `${file} uses a decorator`).not.toMatch(/^\s*@\w+\(/m);
    }
  });

  it('imports inversify only in the composition root', () => {
    const importers = sourceFiles(SRC).filter((file) => importsOf(file).some((spec) => spec.startsWith('inversify')));
    expect(importers.map((file) => file.slice(SRC.length + 1))).toEqual(['container.ts']);
  });

  it('imports mongodb only inside src/adapters/mongo', () => {
    const importers = sourceFiles(SRC).filter((file) => importsOf(file).some((spec) => spec === 'mongodb'));
    for (const file of importers) expect(file).toContain(join('src', 'adapters', 'mongo'));
  });
});
