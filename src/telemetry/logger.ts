import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { BatchedLines } from './batched-lines.js';
import { ConfigError, type AppConfig } from '../config/config.js';

export type { Logger };

/** Wherever a request or its headers get logged, credentials are censored. */
export const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'request.headers.authorization',
  'request.headers.cookie',
  'res.headers["set-cookie"]',
];

/** Lines are written in batches of about this many characters... */
const BATCH_CHARS = 64 * 1024;
/** ...or every this many milliseconds: the most a SIGKILL can lose. */
const FLUSH_EVERY_MS = 100;
/** A reader that stopped reading must not grow the queue without end: past this, lines are dropped. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

export type LogSettings = Pick<AppConfig, 'appEnv' | 'logLevel' | 'logFormat'> & { readonly tracing?: boolean };

/**
 * The process logger: one JSON line per event on stdout, or pino-pretty text for local development
 * (LOG_FORMAT=pretty, or unset with APP_ENV=local on a terminal). Both write in-process: a pino transport
 * would run in a worker thread, which keeps test runners alive. With tracing on, each line carries its trace.
 */
export async function createLogger(settings: LogSettings, destination?: DestinationStream): Promise<Logger> {
  const options: LoggerOptions = {
    level: settings.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // pino's documented mixin rather than instrumentation-pino's wrapping of pino: same fields, a fraction of the cost.
    ...(settings.tracing === true ? (await import('./trace-log-fields.js')).TRACE_LOG_OPTIONS : {}),
  };
  if (destination !== undefined) return pino(options, destination);
  const pretty = wantsPretty(settings) ? await prettyStream(settings.logFormat === 'pretty') : undefined;
  if (pretty !== undefined) return pino(options, pretty);
  // One write per line would cost more than the request it logs; main.ts flushes on SIGTERM and SIGINT too.
  const stdout = pino.destination({ dest: 1, sync: false, maxLength: MAX_QUEUED_BYTES });
  return pino(options, new BatchedLines(stdout, BATCH_CHARS, FLUSH_EVERY_MS));
}

/** Milliseconds since `started` (a performance.now()), to the microsecond: every durationMs in the log. */
export function msSince(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function wantsPretty(settings: LogSettings): boolean {
  if (settings.logFormat !== undefined) return settings.logFormat === 'pretty';
  return settings.appEnv === 'local' && process.stdout.isTTY === true;
}

// pino-pretty is a dev dependency: asked for explicitly it must be there; guessed, JSON will do.
async function prettyStream(required: boolean): Promise<DestinationStream | undefined> {
  try {
    const { default: pretty } = await import('pino-pretty');
    return pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  } catch {
    if (!required) return undefined;
    throw new ConfigError('Invalid setting LOG_FORMAT: pretty needs the pino-pretty dev dependency (installed without --omit=dev)');
  }
}
