import { describe, expect, it } from 'vitest';
import { exportFailureLog, FAILURE_LINE_EVERY_MS } from '../src/telemetry/export-failure-log.js';
import { captureLogs } from './support/log-capture.js';

describe('exportFailureLog', () => {
  it('logs the first failure at once, then one line a minute counting the failures since the previous line', async () => {
    const { logger, entries } = await captureLogs();
    let now = 1_000;
    const report = exportFailureLog(logger, () => now);

    report(new Error('connect ECONNREFUSED 127.0.0.1:4318'));
    for (let i = 0; i < 5; i++) {
      now += 1_000;
      report(new Error('Request Timeout'));
    }
    expect(entries()).toHaveLength(1);
    expect(entries()[0]).toMatchObject({ level: 40, msg: 'trace export failed: spans dropped', failures: 1, err: { message: 'connect ECONNREFUSED 127.0.0.1:4318' } });

    now = 1_000 + FAILURE_LINE_EVERY_MS - 1;
    report(new Error('Request Timeout'));
    expect(entries()).toHaveLength(1);
    now += 1;
    report(new Error('Export failed with retryable status'));
    expect(entries()).toHaveLength(2);
    expect(entries()[1]).toMatchObject({ failures: 7, err: { message: 'Export failed with retryable status' } });
  });
});
