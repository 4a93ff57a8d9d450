import { createLogger, type Logger } from '../../src/telemetry/logger.js';

export interface CapturedLogs {
  /** The real logger (same options as production), writing into memory. */
  readonly logger: Logger;
  /** Every raw line written, exactly as it would reach stdout. */
  readonly text: () => string;
  /** The lines parsed. */
  readonly entries: () => Record<string, unknown>[];
}

export async function captureLogs(logLevel: 'info' | 'debug' = 'info'): Promise<CapturedLogs> {
  const lines: string[] = [];
  const logger = await createLogger({ appEnv: 'local', logLevel, logFormat: 'json' }, { write: (line) => void lines.push(line) });
  return {
    logger,
    text: () => lines.join(''),
    entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
