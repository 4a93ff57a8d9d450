import type { Logger } from './logger.js';

/** A collector that is down fails every batch: one line a minute says so without flooding the log. */
export const FAILURE_LINE_EVERY_MS = 60_000;

/**
 * An error handler for OpenTelemetry's global error handler: logs the first failure at once, then at most one line
 * per FAILURE_LINE_EVERY_MS; `failures` counts the failures since the previous line, this one included.
 */
export function exportFailureLog(logger: Logger, now: () => number = () => performance.now()): (error: unknown) => void {
  let lastLineAt = -Infinity;
  let failures = 0;
  return (error) => {
    failures++;
    if (now() - lastLineAt < FAILURE_LINE_EVERY_MS) return;
    lastLineAt = now();
    logger.warn({ err: error, failures }, 'trace export failed: spans dropped');
    failures = 0;
  };
}
