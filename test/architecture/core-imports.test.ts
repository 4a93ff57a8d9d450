import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

/** A relative import of `file`, as the path of its source relative to src/. */
const sourceOf = (file: string, spec: string) => relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, '.ts')));

/** The src/ files a file imports, as paths relative to src/ (type-only imports included: they are arrows too). */
function localImports(file: string): string[] {
  return importsOf(file)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => sourceOf(file, spec));
}

/** The src/ files loaded with a file: its static imports and re-exports, not `import type`, not `import()`. */
function loadedImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s*['"](\.[^'"]+)['"]|^import\s+['"](\.[^'"]+)['"]/gm)].map((match) =>
    sourceOf(file, match[1] ?? match[2]!),
  );
}

/** Every src/ file that starting `file` loads. */
function loadedFrom(file: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const next of loadedImports(join(SRC, path))) visit(next);
  };
  visit(file);
  return loaded;
}

/** The adapter a src/-relative path belongs to (`http`, `mongo`, ...), or undefined outside src/adapters. */
function adapterOf(path: string): string | undefined {
  const [top, adapter] = path.split('/');
  return top === 'adapters' ? adapter : undefined;
}

/** Every import cycle among src/ files, each as the chain of files that closes it. */
function importCycles(): string[][] {
  const graph = new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), localImports(file)]));
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      cycles.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    state.set(node, 'visiting');
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  return cycles;
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

  it('loads the MongoDB adapters (and the driver) only when storage is mongodb, through one import()', () => {
    const atStart = loadedFrom('main.ts');
    expect(atStart).toContain('container.ts');
    expect(atStart).toContain('adapters/memory/in-memory-pet-repository.ts');
    expect([...atStart].filter((path) => adapterOf(path) === 'mongo')).toEqual([]);
    expect(readFileSync(join(SRC, 'server/start-service.ts'), 'utf8')).toContain("await import('../adapters/mongo/mongo-storage.js')");
    expect(loadedFrom('adapters/mongo/mongo-storage.ts')).toContain('adapters/mongo/mongo-pet-repository.ts');
  });

  it('keeps adapters apart: an adapter imports ports and core, never another adapter', () => {
    const crossings = sourceFiles(join(SRC, 'adapters')).flatMap((file) => {
      const own = adapterOf(relative(SRC, file));
      return localImports(file)
        .filter((target) => adapterOf(target) !== undefined && adapterOf(target) !== own)
        .map((target) => `${relative(SRC, file)} -> ${target}`);
    });
    expect(crossings).toEqual([]);
  });

  it('has no import cycle among src/ files', () => {
    expect(importCycles().map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('finds what it looks for: the checks see real imports', () => {
    const container = localImports(join(SRC, 'container.ts'));
    expect(container).toContain('core/pet-catalog.ts');
    expect(container.some((target) => adapterOf(target) === 'mongo')).toBe(true);
  });
});
