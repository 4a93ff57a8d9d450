import 'reflect-metadata';
import type { Server } from 'node:http';
import type { Middleware } from 'koa';
import { answerClientErrors } from '../adapters/http/client-errors.js';
import { logUnexpectedError, RequestObserver } from '../adapters/http/observe-requests.js';
import { inFlightRequest } from '../adapters/http/request-context.js';
import { apiKeysInForce, type ApiKeysInForce } from '../config/api-keys-in-force.js';
import type { AppConfig } from '../config/config.js';
import { compose, openStorage, TOKENS, type Runtime } from '../container.js';
import { closingWhileDraining, drainHttp } from './drain-http.js';
import { listenHttp, urlOf } from './listen-http.js';
import { logStartUpDecisions } from './log-start-up-decisions.js';
import { createLogger, type Logger } from '../telemetry/logger.js';
import type { Clock } from '../ports/clock.js';

export interface RunningService {
  readonly server: Server;
  /** http://host:port of the listener. */
  readonly url: string;
  /** http://host:port of the metrics listener, when METRICS_PORT gives it its own. */
  readonly metricsUrl?: string;
  /** The key generated at start when none was configured (APP_ENV=local only). */
  readonly generatedApiKey?: string;
  /**
   * Drains and stops: readiness turns 503 and every response says Connection: close; for SHUTDOWN_GRACE_MS
   * the listeners still accept and answer, then they stop accepting and in-flight requests finish until
   * SHUTDOWN_TIMEOUT_MS from the call (then their connections are cut); background work stops, then storage.
   */
  stop(): Promise<StopResult>;
}

export interface StopResult {
  /** True when the deadline cut requests still in flight. */
  readonly forced: boolean;
  readonly durationMs: number;
}

export interface StartOptions {
  /** Replaces the system clock (tests of time-dependent behaviour). */
  readonly clock?: Clock;
  /** Replaces the logger built from config (tests capture the log stream). */
  readonly logger?: Logger;
  /** Standard Koa middleware mounted on every API route (see createHttpApp). */
  readonly middleware?: readonly Middleware[];
}

/** Composes the service from config and starts listening. */
export async function startService(config: AppConfig, options: StartOptions = {}): Promise<RunningService> {
  const keys = apiKeysInForce(config);
  const logger = options.logger ?? (await createLogger(config));
  logStartUpDecisions(logger, config, keys);
  // Opened before composing, so resolution stays synchronous; an unreachable server does not stop start-up.
  const storage = await openStorage(config, { logger, clock: options.clock });
  // Loaded only when tracing is on, so that without it nothing of OpenTelemetry is in the process.
  const tracing = config.tracing ? await import('../adapters/http/request-tracing.js') : undefined;
  try {
    return await listenAll(config, { keys, logger, storage, tracing, clock: options.clock, middleware: options.middleware });
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** What startService prepared before composing. */
interface Prepared {
  readonly keys: ApiKeysInForce;
  readonly logger: Logger;
  readonly storage: Runtime['storage'];
  readonly tracing: Runtime['tracing'];
  readonly clock: Clock | undefined;
  readonly middleware: readonly Middleware[] | undefined;
}

async function listenAll(config: AppConfig, { keys, logger, storage, tracing, clock, middleware }: Prepared): Promise<RunningService> {
  let draining = false;
  const container = compose(config, {
    apiKeys: keys.apiKeys,
    logger,
    isDraining: () => draining,
    onUnexpectedError: logUnexpectedError(logger),
    storage,
    ...(tracing === undefined ? {} : { tracing }),
    ...(clock === undefined ? {} : { clock }),
    ...(middleware === undefined ? {} : { middleware }),
  });
  // The server's own answers (400, 408, 431 from Node's parser and timeouts) are logged and counted like the app's.
  const answerClientError = answerClientErrors(new RequestObserver(logger, container.get(TOKENS.metrics)));
  const apiHandler = closingWhileDraining(() => draining, container.get(TOKENS.httpApp).callback());
  const server = await listenHttp(apiHandler, config, config.port, answerClientError);
  const metricsApp = container.get(TOKENS.metricsApp);
  const metricsServer =
    metricsApp === undefined || config.metricsPort === undefined
      ? undefined
      : await listenHttp(metricsApp.callback(), config, config.metricsPort, answerClientError);
  const { perKey, authFailures } = storage.rateLimits;
  return {
    server,
    url: urlOf(server, config.host),
    ...(metricsServer === undefined ? {} : { metricsUrl: urlOf(metricsServer, config.host) }),
    ...(keys.generatedApiKey === undefined ? {} : { generatedApiKey: keys.generatedApiKey }),
    stop: async () => {
      const started = performance.now();
      draining = true;
      const forced = await drainHttp([server, ...(metricsServer === undefined ? [] : [metricsServer])], {
        graceMs: config.shutdownGraceMs,
        timeoutMs: config.shutdownTimeoutMs,
        onGraceOver: () => {
          logger.info('shutting down: no longer accepting connections');
          logger.flush();
        },
        inFlightResponse: (socket) => inFlightRequest(socket)?.res,
      });
      // No request uses them any more; their last writes need storage, so storage closes last.
      try {
        await Promise.all([perKey?.close(), authFailures?.close()]);
      } finally {
        await storage.close();
      }
      return { forced, durationMs: Math.round(performance.now() - started) };
    },
  };
}
