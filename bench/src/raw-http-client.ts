import { connect, type Socket } from 'node:net';

/** One answered request: its status, or an error (connection lost, a response this reader cannot frame). */
export type Answer = { readonly status: number } | { readonly error: Error };

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /^content-length:[ \t]*(\d+)[ \t]*$/im;
const STATUS = /^HTTP\/1\.1 (\d{3}) /;
const CHUNKED = /^transfer-encoding:[ \t]*chunked[ \t]*$/im;
const CRLF = Buffer.from('\r\n');

/**
 * A keep-alive HTTP/1.1 connection that sends one request at a time, written as one preformatted string,
 * and frames the answer by Content-Length or chunked encoding (node:http's writeHead without a length). The paced load generator shares
 * one core with the harness: node:http's client (a ClientRequest, an IncomingMessage, a parser and their
 * events per request) cost it 10 to 30 ms late ticks at 10,000 req/s, which showed as latency of every server.
 */
export class RawHttpConnection {
  private readonly socket: Socket;
  private pending: Buffer = Buffer.alloc(0);
  private waiting: ((answer: Answer) => void) | undefined;
  private closedWith: Error | undefined;

  constructor(host: string, port: number) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    const close = (error: Error) => {
      this.closedWith ??= error;
      this.settle({ error: this.closedWith });
    };
    this.socket.on('error', close);
    this.socket.on('close', () => close(new Error('connection closed')));
  }

  /** Sends `request` (a whole HTTP/1.1 request, head and body) and resolves once its response has been read. */
  send(request: string, done: (answer: Answer) => void): void {
    if (this.closedWith !== undefined) return done({ error: this.closedWith });
    this.waiting = done;
    this.socket.write(request);
  }

  destroy(): void {
    this.socket.destroy();
  }

  private read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const headEnd = this.pending.indexOf(HEAD_END);
    if (headEnd === -1) return;
    const head = this.pending.toString('latin1', 0, headEnd);
    const status = STATUS.exec(head);
    const bodyStart = headEnd + HEAD_END.length;
    const length = CONTENT_LENGTH.exec(head);
    const total = length !== null ? bodyStart + Number(length[1]) : CHUNKED.test(head) ? chunkedEnd(this.pending, bodyStart) : -1;
    if (status === null || total === -1) {
      this.settle({ error: new Error(`cannot frame the response: ${head.split('\r\n')[0]}`) });
      this.socket.destroy();
      return;
    }
    if (total === undefined || this.pending.length < total) return;
    this.pending = this.pending.subarray(total);
    this.settle({ status: Number(status[1]) });
  }

  private settle(answer: Answer): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(answer);
  }
}

/** The request as it goes on the wire. */
export function rawRequest(host: string, method: string, path: string, headers: Readonly<Record<string, string>>, body: string | undefined): string {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** Where a chunked body that starts at `from` ends (after its last CRLF); undefined while incomplete. */
function chunkedEnd(buffer: Buffer, from: number): number | undefined {
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf(CRLF, at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (size === 0) {
      // No trailers are sent by the servers measured: the last chunk is followed by one empty line.
      return buffer.length >= lineEnd + 4 ? lineEnd + 4 : undefined;
    }
    at = lineEnd + 2 + size + 2;
    if (buffer.length < at) return undefined;
  }
}
