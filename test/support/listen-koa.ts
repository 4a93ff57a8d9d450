import type Koa from 'koa';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ListeningKoa {
  readonly server: Server;
  readonly url: string;
}

/** A bare Koa app on a real socket, port chosen by the OS; for tests of one piece of the HTTP adapter. */
export async function listenKoa(app: Koa): Promise<ListeningKoa> {
  const server = createServer(app.callback()).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
