import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFlagsOf, startScriptFlags } from '../../bench/src/servers.js';

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
});
