import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFlagsOf, startScriptFlags, unsupportedNode } from '../../bench/src/servers.js';

describe('the node flags the bench starts the service with', () => {
  it('are the ones npm start gives it', () => {
    const root = join(import.meta.dirname, '../..');
    expect(startScriptFlags(join(root, 'package.json'))).toEqual(['--enable-source-maps', '--v8-pool-size=0', '--import', join(root, 'dist/telemetry/tracing-preload.js')]);
  });

  it('refuses a start script of another shape rather than measure a service started otherwise', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'start-flags-')), 'package.json');
    writeFileSync(file, JSON.stringify({ scripts: { start: 'tsx src/main.ts' } }));
    expect(() => startScriptFlags(file)).toThrow(/npm start is not/);
  });

  it('are, for a baseline build, those of the package.json above it, and none for a yardstick', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'baseline-'));
    const start = 'node --v8-pool-size=0 --heap-growing-percent=300 --import ./dist/telemetry/tracing-preload.js dist/main.js';
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ scripts: { start } }));
    mkdirSync(join(checkout, 'dist'));
    const entry = join(checkout, 'dist', 'main.js');
    // Its own preload, wherever the harness runs from.
    expect(startFlagsOf('baseline', entry)).toEqual(['--v8-pool-size=0', '--heap-growing-percent=300', '--import', join(checkout, 'dist/telemetry/tracing-preload.js')]);
    expect(startFlagsOf('service', entry)).toEqual(startScriptFlags(join(import.meta.dirname, '../../package.json')));
    expect(startFlagsOf('traced 1%', entry)).toEqual(startFlagsOf('service', entry));
    expect(startFlagsOf('koa', entry)).toEqual([]);
  });

  it('are refused on a Node.js older than the package allows, as every server would run on it', () => {
    expect(unsupportedNode('v20.20.2')).toMatch(/Node\.js v20\.20\.2, and the package needs >=24/);
    expect(unsupportedNode('v24.21.0')).toBeUndefined();
    const file = join(mkdtempSync(join(tmpdir(), 'engines-')), 'package.json');
    writeFileSync(file, JSON.stringify({ engines: { node: '^24.0.0' } }));
    expect(() => unsupportedNode('v24.21.0', file)).toThrow(/is not ">=N"/);
  });
});
