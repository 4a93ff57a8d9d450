import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, type AppConfig } from './config.js';
import { compose, TOKENS } from './container.js';
import type { Clock } from './ports/clock.js';

export interface RunningService {
  readonly server: Server;
  /** http://host:port of the listener. */
  readonly url: string;
  /** The key generated at start when none was configured (outside production only). */
  readonly generatedApiKey?: string;
  /** Stops accepting connections, finishes in-flight requests, releases storage. */
  stop(): Promise<void>;
}

/** A fresh random API key: 256 bits, URL-safe. */
export function newApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Composes the service from config and starts listening. */
export async function startService(config: AppConfig, options: { clock?: Clock } = {}): Promise<RunningService> {
  let generatedApiKey: string | undefined;
  if (config.apiKeys.length === 0) {
    if (config.appEnv === 'production') {
      throw new ConfigError('Invalid setting API_KEYS: production needs at least one key (see npm run key:new)');
    }
    generatedApiKey = newApiKey();
  }
  const container = compose(config, {
    apiKeys: generatedApiKey === undefined ? config.apiKeys : [generatedApiKey],
    onUnexpectedError: (error) => console.error('unexpected error', error),
    ...options,
  });
  const app = container.get(TOKENS.httpApp);
  const server = app.listen({ port: config.port, host: config.host });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === undefined || config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return {
    server,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ...(generatedApiKey === undefined ? {} : { generatedApiKey }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
