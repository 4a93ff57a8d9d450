import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { answerClientErrors } from './adapters/http/client-errors.js';
import { logUnexpectedError, RequestObserver } from './adapters/http/observe-requests.js';
import { connectMongo, type MongoConnection } from './adapters/mongo/connect-mongo.js';
import { createIndexes } from './adapters/mongo/mongo-indexes.js';
import { ConfigError, type AppConfig } from './config.js';
import { compose, TOKENS } from './container.js';
import { createLogger, type Logger } from './logger.js';
import type { Clock } from './ports/clock.js';

export interface RunningService {
  readonly server: Server;
  /** http://host:port of the listener. */
  readonly url: string;
  /** http://host:port of the metrics listener, when METRICS_PORT gives it its own. */
  readonly metricsUrl?: string;
  /** The key generated at start when none was configured (outside production only). */
  readonly generatedApiKey?: string;
  /**
   * Drains and stops: readiness turns 503, listeners stop accepting, in-flight requests finish until
   * SHUTDOWN_TIMEOUT_MS (then their connections are cut), storage is released.
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
}

/** A fresh random API key: 256 bits, URL-safe. */
export function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Composes the service from config and starts listening. */
export async function startService(config: AppConfig, options: StartOptions = {}): Promise<RunningService> {
  let generatedApiKey: string | undefined;
  if (config.apiKeys.length === 0) {
    if (config.appEnv === 'production') {
      throw new ConfigError('Invalid setting API_KEYS: production needs at least one key (see npm run key:new)');
    }
    generatedApiKey = newApiKey();
  }
  const logger = options.logger ?? (await createLogger(config));
  // Connected before composing, so resolution stays synchronous; an unreachable server does not stop start-up.
  const mongo =
    config.storage === 'mongodb'
      ? await connectMongo(config.mongodb, createIndexes, (error) =>
          logger.warn({ err: error }, 'MongoDB is not reachable at start-up; storage answers 503 until it is'),
        )
      : undefined;
  try {
    return await listenAll(config, { generatedApiKey, logger, mongo, clock: options.clock });
  } catch (error) {
    await mongo?.close();
    throw error;
  }
}

/** What startService prepared before composing. */
interface Prepared {
  readonly generatedApiKey: string | undefined;
  readonly logger: Logger;
  readonly mongo: MongoConnection | undefined;
  readonly clock: Clock | undefined;
}

async function listenAll(config: AppConfig, { generatedApiKey, logger, mongo, clock }: Prepared): Promise<RunningService> {
  let draining = false;
  const container = compose(config, {
    apiKeys: generatedApiKey === undefined ? config.apiKeys : [generatedApiKey],
    logger,
    isDraining: () => draining,
    onUnexpectedError: logUnexpectedError(logger),
    ...(mongo === undefined ? {} : { mongo }),
    ...(clock === undefined ? {} : { clock }),
  });
  // While draining, every response asks the client to close its connection, so none is reused.
  const whileDraining = (handler: RequestListener): RequestListener => (req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    handler(req, res);
  };
  // The server's own answers (400, 408, 431 from Node's parser and timeouts) are logged and counted like the app's.
  const answerClientError = answerClientErrors(new RequestObserver(logger, container.get(TOKENS.metrics)));
  const server = await listen(whileDraining(container.get(TOKENS.httpApp).callback()), config, config.port, answerClientError);
  const metricsApp = container.get(TOKENS.metricsApp);
  const metricsServer =
    metricsApp === undefined || config.metricsPort === undefined
      ? undefined
      : await listen(metricsApp.callback(), config, config.metricsPort, answerClientError);
  return {
    server,
    url: urlOf(server, config.host),
    ...(metricsServer === undefined ? {} : { metricsUrl: urlOf(metricsServer, config.host) }),
    ...(generatedApiKey === undefined ? {} : { generatedApiKey }),
    stop: async () => {
      const started = performance.now();
      draining = true;
      const forced = await drain([server, ...(metricsServer === undefined ? [] : [metricsServer])], config.shutdownTimeoutMs);
      await mongo?.close();
      return { forced, durationMs: Math.round(performance.now() - started) };
    },
  };
}

/** A listener with every limit explicit: header size, time to send headers, to send the request, idle keep-alive. */
async function listen(
  handler: RequestListener,
  config: AppConfig,
  port: number,
  answerClientError: (error: Error, socket: Duplex) => void,
): Promise<Server> {
  const server = createServer(
    {
      maxHeaderSize: config.maxHeaderBytes,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // How often Node checks the two timeouts above (its default, 30 s, would make them far too coarse).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)),
    },
    handler,
  );
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.on('clientError', answerClientError);
  trackSockets(server);
  server.listen({ port, host: config.host });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return server;
}

/**
 * Stops accepting and waits for in-flight requests; idle keep-alive connections close at once (Node's
 * server.close does that). At the deadline every remaining connection is cut. True when the deadline hit.
 */
async function drain(servers: readonly Server[], deadlineMs: number): Promise<boolean> {
  const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  servers.forEach(closeAfterCurrentResponse);
  let deadline: NodeJS.Timeout | undefined;
  const forced = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (deadline = setTimeout(() => resolve(true), deadlineMs))),
  ]);
  clearTimeout(deadline);
  if (forced) {
    servers.forEach((server) => server.closeAllConnections());
    await closed;
  }
  return forced;
}

const openSockets = new WeakMap<Server, Set<Socket>>();

/** Remembers the server's open connections, so that shutdown can reach requests already in flight. */
function trackSockets(server: Server): void {
  const sockets = new Set<Socket>();
  openSockets.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}

// A response in flight when the drain began would otherwise leave its connection open for reuse until
// the keep-alive timeout. `_httpMessage` is Node's (undocumented, long-stable) in-flight response of a
// socket; http-terminator relies on it too.
function closeAfterCurrentResponse(server: Server): void {
  for (const socket of openSockets.get(server) ?? []) {
    const response = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (response !== undefined && response !== null && !response.headersSent) response.setHeader('Connection', 'close');
  }
}

function urlOf(server: Server, configuredHost: string | undefined): string {
  const { port } = server.address() as AddressInfo;
  const host =
    configuredHost === undefined || configuredHost === '0.0.0.0' || configuredHost === '::' ? 'localhost' : configuredHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
