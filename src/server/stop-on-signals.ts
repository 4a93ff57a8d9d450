import type { Logger } from '../telemetry/logger.js';
import type { RunningService } from './start-service.js';

/**
 * A repeat of the first signal this soon after it is the same delivery, not a second one: a signal sent to the
 * whole process group (Ctrl-C, systemd's stop) reaches npm and node --watch too, and each passes its copy on.
 */
export const SAME_DELIVERY_MS = 500;

export interface StopSequence {
  readonly service: Pick<RunningService, 'stop'>;
  readonly logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: counted from the signal, the export of the spans still held included. */
  readonly timeoutMs: number;
  /** Ends tracing, exporting the spans still held (when tracing runs). */
  readonly stopTracing?: () => Promise<void>;
}

/** First SIGTERM/SIGINT drains, then exports the spans still held; a later second one gives up waiting. */
export function stopOnSignals(sequence: StopSequence): void {
  let first: { readonly signal: NodeJS.Signals; readonly at: number } | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = { signal, at: performance.now() };
      void stop(sequence, signal, first.at);
    } else if (signal === first.signal && performance.now() - first.at < SAME_DELIVERY_MS) {
      sequence.logger.debug({ signal }, 'signal repeated at once: the same delivery, passed on by a parent process');
    } else {
      sequence.logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

async function stop({ service, logger, timeoutMs, stopTracing }: StopSequence, signal: NodeJS.Signals, signalledAt: number): Promise<void> {
  logger.info({ signal }, 'shutting down: draining requests');
  logger.flush();
  const { forced } = await service.stop();
  if (stopTracing !== undefined) await exportSpans(stopTracing, timeoutMs - (performance.now() - signalledAt), logger);
  const durationMs = Math.round(performance.now() - signalledAt);
  logger[forced ? 'warn' : 'info']({ forced, durationMs }, forced ? 'stopped at the deadline' : 'stopped');
  process.exit(forced ? 1 : 0);
}

/** Waits for the export at most `budgetMs`: a collector that never answers must not hold the process up. */
async function exportSpans(stopTracing: () => Promise<void>, budgetMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'deadline'>((resolve) => (timer = setTimeout(resolve, Math.max(0, budgetMs), 'deadline')));
  try {
    if ((await Promise.race([stopTracing(), deadline])) === 'deadline') {
      logger.warn({ budgetMs: Math.max(0, Math.round(budgetMs)) }, 'spans not exported at shutdown: SHUTDOWN_TIMEOUT_MS reached');
    }
  } catch (error) {
    logger.warn({ err: error }, 'spans not exported at shutdown');
  } finally {
    clearTimeout(timer);
  }
}
