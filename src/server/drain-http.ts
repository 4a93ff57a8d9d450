import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface DrainSettings {
  /** How long the listeners keep accepting and answering (each response with Connection: close). */
  readonly graceMs: number;
  /** Counted from the start of the drain, grace included: then every connection still open is cut. */
  readonly timeoutMs: number;
  /** Called when the grace is over and the listeners stop accepting. */
  readonly onGraceOver?: () => void;
  /** The response a connection is answering, if any (the app remembers it), so that it can close the connection after it. */
  readonly inFlightResponse: (socket: Socket) => ServerResponse | undefined;
}

/**
 * Stops the servers without losing a request that reached them. For the grace they keep accepting, so
 * connections still in the kernel's accept queue, and requests not yet read, are answered (a closed listener
 * resets the first; Node's server.close destroys the second as idle). Then they stop accepting, close idle
 * keep-alive connections and wait for requests in flight until the deadline. True when the deadline hit.
 */
export async function drainHttp(servers: readonly Server[], settings: DrainSettings): Promise<boolean> {
  let deadline: NodeJS.Timeout | undefined;
  const deadlineHit = new Promise<true>((resolve) => (deadline = setTimeout(resolve, settings.timeoutMs, true)));
  servers.forEach((server) => closeAfterCurrentResponse(server, settings.inFlightResponse));
  if (settings.graceMs > 0) {
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (grace = setTimeout(resolve, settings.graceMs))), deadlineHit]);
    clearTimeout(grace);
  }
  settings.onGraceOver?.();
  const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  const forced = await Promise.race([closed.then(() => false), deadlineHit]);
  clearTimeout(deadline);
  if (forced) {
    servers.forEach((server) => server.closeAllConnections());
    await closed;
  }
  return forced;
}

/** Once draining, every response asks the client to close its connection, so none is reused. */
export function closingWhileDraining(isDraining: () => boolean, handler: RequestListener): RequestListener {
  return (req, res) => {
    if (isDraining()) res.setHeader('Connection', 'close');
    handler(req, res);
  };
}

const openSockets = new WeakMap<Server, Set<Socket>>();

/** Remembers the server's open connections, so that shutdown can reach requests already in flight. */
export function trackConnections(server: Server): void {
  const sockets = new Set<Socket>();
  openSockets.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
}

// A response in flight when the drain began would otherwise leave its connection open for reuse until
// the keep-alive timeout.
function closeAfterCurrentResponse(server: Server, inFlightResponse: DrainSettings['inFlightResponse']): void {
  for (const socket of openSockets.get(server) ?? []) {
    const response = inFlightResponse(socket);
    if (response !== undefined && !response.headersSent) response.setHeader('Connection', 'close');
  }
}
