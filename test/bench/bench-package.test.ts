import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BENCH = join(import.meta.dirname, '../../bench');
const manifest = JSON.parse(readFileSync(join(BENCH, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
const declared = new Set(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.optionalDependencies }));
const sources = readdirSync(join(BENCH, 'src')).filter((file) => file.endsWith('.ts'));

/** The module specifiers a source file imports, statically, for its side effects or with import(). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(BENCH, 'src', file), 'utf8');
  const found = text.matchAll(/^import\s+(?:[^'";]*?\sfrom\s+)?'([^']+)'|\bimport\(\s*'([^']+)'/gm);
  return [...found].map((match) => (match[1] ?? match[2])!);
}

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

// The bench starts the built service as a user does; what it measures it must not import.
describe('the bench package', () => {
  it('imports only its own files, Node built-ins and the packages its package.json declares', () => {
    expect(sources.flatMap(importsOf)).toEqual(expect.arrayContaining(['fastify', 'mongodb', 'pino', 'prom-client', 'node:http', './servers.js']));
    const outside = sources.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !(specifier.startsWith('./') && !specifier.slice(2).includes('/')))
        .filter((specifier) => !specifier.startsWith('node:') && !declared.has(packageOf(specifier)))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(outside).toEqual([]);
  });
});
