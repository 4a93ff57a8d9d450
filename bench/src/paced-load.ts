import { latencies, nextRequest, requestHeaders, type LoadResult, type RequestSource } from './load.js';
import { RawHttpConnection, rawRequest } from './raw-http-client.js';

export interface PacedOptions {
  readonly apiKey: string;
  /** Requests per second, offered whatever the server does (open loop). */
  readonly rate: number;
  readonly seconds: number;
  /** The server's keep-alive connections the requests may use at once; they stay open for the next run. */
  readonly sockets: SocketPool;
  readonly source: RequestSource;
}

/**
 * Keep-alive connections to one server, kept from one paced run to the next: the unrecorded warm-up's
 * connections carry the measured run. Closing them and opening new ones just before it made every server
 * (yardsticks alike) handle the closes first, and a close deoptimizes Node's stream and HTTP code
 * (--trace-deopt: Readable.push, onEofChunk, parserOnHeadersComplete... "wrong map"): re-optimizing took
 * 60 ms of V8's compiler threads on the server's one core, and the first 70 to 230 ms of the run queued
 * up to 40 ms, which decided p99 over 2 s. The warm-up is there to take that; the measured run must not
 * bring it back.
 */
export class SocketPool {
  readonly free: RawHttpConnection[];
  private readonly all: RawHttpConnection[];

  constructor(
    readonly url: string,
    size: number,
  ) {
    this.all = Array.from({ length: size }, () => this.open());
    this.free = [...this.all];
  }

  /** A new connection in place of one that failed. */
  replace(failed: RawHttpConnection): RawHttpConnection {
    failed.destroy();
    const next = this.open();
    this.all.push(next);
    return next;
  }

  destroy(): void {
    for (const connection of this.all) connection.destroy();
  }

  private open(): RawHttpConnection {
    const { hostname, port } = new URL(this.url);
    return new RawHttpConnection(hostname, Number(port));
  }
}

export interface PacedResult extends LoadResult {
  /** How far behind its schedule the generator itself fell at worst, ms (should stay near 1). */
  readonly lateMs: number;
}

/*
 * A fixed offered rate, evenly spread: request i (from 0) is due at i / rate seconds, and every due request is sent
 * on the next 1 ms timer tick. autocannon 8's overallRate/connectionRate is a per-second quota per
 * connection: every connection sends its quota back to back at the start of each second and then waits,
 * so its "paced" run is a saturating burst once a second, queueing again. Latency here runs from the
 * moment a request is handed to the socket pool to its last byte, so a request waiting for a free socket
 * (the server falling behind) counts as latency, as it would for a client. The sockets are raw keep-alive
 * connections (raw-http-client.ts): node:http's client cost the generator more than the servers it measured.
 */
export function firePaced(options: PacedOptions): Promise<PacedResult> {
  const { host } = new URL(options.sockets.url);
  const headers = requestHeaders(options.apiKey);
  const { free } = options.sockets;
  // Requests due while every connection is busy wait here, in order; their wait counts as latency.
  const queued: { readonly request: string; readonly sentAt: number }[] = [];
  const times: number[] = [];
  const counts = { sent: 0, done: 0, errors: 0, non2xx: 0 };
  let lateMs = 0;
  const started = performance.now();
  const end = started + options.seconds * 1000;
  const total = Math.max(1, Math.floor(options.seconds * options.rate));

  return new Promise((resolve) => {
    const finish = () => {
      if (counts.done < counts.sent || performance.now() < end) return;
      const seconds = (performance.now() - started) / 1000;
      const answered = counts.done - counts.errors;
      resolve({ requests: answered, seconds, reqPerSec: answered / seconds, ...latencies(times), errors: counts.errors, non2xx: counts.non2xx, lateMs });
    };
    const dispatch = (connection: RawHttpConnection, request: string, sentAt: number) => {
      connection.send(request, (answer) => {
        if ('error' in answer) counts.errors++;
        else {
          if (answer.status < 200 || answer.status > 299) counts.non2xx++;
          times.push(performance.now() - sentAt);
        }
        counts.done++;
        // A connection that failed is replaced, so that requests still queued are sent and the run ends.
        const next = 'error' in answer ? options.sockets.replace(connection) : connection;
        const waiting = queued.shift();
        if (waiting !== undefined) dispatch(next, waiting.request, waiting.sentAt);
        else free.push(next);
        finish();
      });
    };
    const send = () => {
      const spec = nextRequest(options.source);
      const request = rawRequest(host, spec.method, spec.path, headers, spec.body);
      const sentAt = performance.now();
      counts.sent++;
      const connection = free.pop();
      if (connection === undefined) queued.push({ request, sentAt });
      else dispatch(connection, request, sentAt);
    };
    const tick = () => {
      const now = performance.now();
      // At least one request, however short the run and low the rate.
      const due = Math.min(Math.floor(((Math.min(now, end) - started) / 1000) * options.rate) + 1, total);
      if (due > counts.sent) lateMs = Math.max(lateMs, now - (started + (counts.sent * 1000) / options.rate));
      while (counts.sent < due) send();
      if (now < end) setTimeout(tick, 1);
      else finish();
    };
    tick();
  });
}
