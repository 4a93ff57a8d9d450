import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AppConfig } from '../config/config.js';
import { trackConnections } from './drain-http.js';

/** A listener with every limit explicit: header size, time to send headers, to send the request, idle keep-alive. */
export async function listenHttp(
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
  trackConnections(server);
  server.listen({ port, host: config.host });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return server;
}

/** http://host:port of a listening server, naming localhost when it listens on every interface. */
export function urlOf(server: Server, configuredHost: string | undefined): string {
  const { port } = server.address() as AddressInfo;
  const host =
    configuredHost === undefined || configuredHost === '0.0.0.0' || configuredHost === '::' ? 'localhost' : configuredHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
