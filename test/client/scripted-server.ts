import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** The body text, sent as application/json. */
  readonly body?: string;
  /** Accept the request and never answer (a hung server). */
  readonly hang?: boolean;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedServer {
  /** http://127.0.0.1:port/v1 */
  readonly baseUrl: string;
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real listening node:http server that answers with `replies` in order (the last one repeats), for
 * failure sequences the service cannot be made to produce on demand (503 then 201, 409 then a replay).
 */
export async function startScriptedServer(replies: readonly ScriptedReply[]): Promise<ScriptedServer> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = replies[Math.min(received.length, replies.length) - 1]!;
      if (reply.hang === true) return;
      response.writeHead(reply.status, { 'Content-Type': 'application/json', ...reply.headers });
      response.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An Error body as the service writes it. */
export function errorReply(status: number, code: string, headers: Record<string, string> = {}): ScriptedReply {
  return { status, headers: { 'X-Request-Id': `scripted-${status}`, ...headers }, body: JSON.stringify({ code, message: `scripted ${code}`, status }) };
}
