import { createServer } from 'node:http';

/** A local OTLP/HTTP endpoint for the traced servers (--tracing): it takes every export and keeps only counts. */
export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  /** Export requests and body bytes received so far. */
  received(): { readonly requests: number; readonly bytes: number };
  stop(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let requests = 0;
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      requests++;
      // An empty ExportTraceServiceResponse: a zero-length protobuf message.
      response.writeHead(200, { 'Content-Type': 'application/x-protobuf', 'Content-Length': 0 }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ requests, bytes }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
