import { existsSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LogFile } from '../../bench/src/log-file.js';

// Where the bench sends a service build's stdout (its request log) instead of a pipe the load generator reads.
describe("the bench's log file for a service's stdout", () => {
  it('holds what a child process writes to its stdout, from the start', () => {
    const log = new LogFile();
    try {
      spawnSync(process.execPath, ['-e', 'console.log(JSON.stringify({ url: "http://127.0.0.1:1/v1" }))'], { stdio: ['ignore', log.fd, 'inherit'] });
      expect(log.head()).toBe('{"url":"http://127.0.0.1:1/v1"}\n');
    } finally {
      log.remove();
    }
  });

  it('once emptied, takes the next write at its start (appending), and is gone once removed', () => {
    const log = new LogFile();
    const path = log['path'] as string;
    writeSync(log.fd, 'a line that is dropped\n');
    log.empty();
    writeSync(log.fd, 'next\n');
    expect(log.head()).toBe('next\n');
    log.remove();
    expect(existsSync(dirname(path))).toBe(false);
  });
});
