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

/** The npm packages a file loads: its static imports that are not `import type` and not relative. */
function loadedPackages(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+(?!type\b)[^'"]*?from\s*['"]([^'".][^'"]*)['"]/gm)].map((match) => match[1]!);
}

/** Source text without its comments (a `//` after a colon is a URL, kept). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** The src/adapters folders the storage table imports from: one per registered backend. */
const STORAGE_FOLDERS = [
  ...new Set(
    localImports(join(SRC, 'storage-backends.ts'))
      .map((path) => adapterOf(path))
      .filter((folder) => folder !== undefined),
  ),
];

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

  it('registers storage backends in one table, which alone reaches into their folders', () => {
    const importers = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((path) => !STORAGE_FOLDERS.includes(adapterOf(path) ?? ''))
      .filter((path) => localImports(join(SRC, path)).some((target) => STORAGE_FOLDERS.includes(adapterOf(target) ?? '')));
    expect(importers).toEqual(['storage-backends.ts']);
    expect(STORAGE_FOLDERS).toEqual(expect.arrayContaining(['memory', 'mongo']));
  });

  it('names MongoDB in code only in its folder, the storage table and the list of trace instrumentations', () => {
    const naming = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((path) => adapterOf(path) !== 'mongo' && /mongo/i.test(withoutComments(readFileSync(join(SRC, path), 'utf8'))));
    expect(naming.sort()).toEqual(['storage-backends.ts', 'telemetry/start-tracing.ts']);
  });

  it('keeps src/ itself to the entry point, the composition root and the storage table', () => {
    const loose = readdirSync(SRC).filter((name) => name.endsWith('.ts'));
    expect(loose.sort()).toEqual(['container.ts', 'main.ts', 'storage-backends.ts']);
  });

  it('loads no storage driver at start: a backend folder loads only its settings schema (zod) until open()', () => {
    const atStart = loadedFrom('main.ts');
    expect(atStart).toContain('storage-backends.ts');
    expect(atStart).toContain('adapters/mongo/mongo-config.ts');
    const packages = [...atStart]
      .filter((path) => STORAGE_FOLDERS.includes(adapterOf(path) ?? ''))
      .flatMap((path) => loadedPackages(join(SRC, path)).map((name) => `${path} -> ${name}`));
    expect(packages.filter((entry) => !entry.endsWith('-> zod'))).toEqual([]);
    expect(atStart).not.toContain('adapters/mongo/mongo-storage.ts');
    expect(atStart).not.toContain('adapters/mongo/connect-mongo.ts');
  });

  it('loads the MongoDB adapters (and the driver) inside open() of the mongodb backend, through one import()', () => {
    const backend = readFileSync(join(SRC, 'adapters/mongo/mongo-backend.ts'), 'utf8');
    expect(backend).toMatch(/open: async [^\n]*await import\('\.\/mongo-storage\.js'\)/);
    expect(loadedFrom('adapters/mongo/mongo-storage.ts')).toContain('adapters/mongo/mongo-pet-repository.ts');
    expect(loadedPackages(join(SRC, 'adapters/mongo/connect-mongo.ts'))).toContain('mongodb');
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
    expect(localImports(join(SRC, 'storage-backends.ts')).some((target) => adapterOf(target) === 'mongo')).toBe(true);
    expect(withoutComments("a // mongo\n/* mongo */ b")).not.toMatch(/mongo/);
  });
});
