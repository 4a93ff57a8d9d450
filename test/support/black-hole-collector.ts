import { createServer, type Socket } from 'node:net';

/** A trace collector that accepts every connection and never answers: exports hang until the exporter gives up. */
export interface BlackHoleCollector {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  /** Connections accepted so far. */
  connections(): number;
  stop(): Promise<void>;
}

export async function startBlackHoleCollector(): Promise<BlackHoleCollector> {
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    open.add(socket);
    socket.on('error', () => undefined).once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    stop: () => {
      open.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
