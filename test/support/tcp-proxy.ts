import net from 'node:net';
import { pickFreePort } from './mongo-server.js';

/**
 * A TCP relay in front of the test server, so outage tests can take "MongoDB" away and bring it back
 * with its data intact, whichever server the run uses (an external MONGODB_URL server cannot be killed).
 * Down means what a crashed server looks like to the driver: open connections reset, new ones refused.
 * A black hole is a silent partition: connections stay open and new ones are accepted, nothing is forwarded.
 */
export interface TcpProxy {
  /** The server's URL pointed at the relay (same credentials and options, directConnection=true). */
  readonly url: string;
  /** Starts relaying on its fixed port. */
  up(): Promise<void>;
  /** Resets every connection and stops listening. */
  down(): Promise<void>;
  /**
   * Loses the next `count` replies on the way back: each request is relayed to the server, and when the
   * server's reply arrives the client's connection is reset instead (a lost response).
   */
  dropResponses(count: number): void;
  /** Keeps every connection open (and accepts new ones) but swallows their bytes both ways; up() resets them and relays again. */
  blackHole(): void;
  /**
   * Relays the next request whose bytes contain `marker` to the server, and loses its reply: when the reply
   * arrives, that client connection is reset ('reset'), or the relay goes down ('down': the server did the
   * work and crashed before answering). Resolves once the reply was lost.
   */
  loseReplyTo(marker: string, then: 'reset' | 'down'): Promise<void>;
}

interface LostReply {
  readonly marker: Buffer;
  readonly then: 'reset' | 'down';
  readonly lost: () => void;
}

export async function createTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const port = await pickFreePort();
  const target = relayed(targetUrl, port);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let responsesToDrop = 0;
  let replyToLose: LostReply | undefined;
  let swallowing = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  return {
    url: target.url,
    async up() {
      if (swallowing) {
        swallowing = false;
        for (const socket of sockets) socket.resetAndDestroy();
      }
      if (server !== undefined) return;
      const relay = net.createServer((client) => {
        if (swallowing) return void swallow(track, client);
        const upstream = net.connect(target.port, target.host);
        track(client);
        track(upstream);
        client.on('error', () => upstream.destroy());
        upstream.on('error', () => client.destroy());
        let losing: LostReply | undefined;
        client.on('data', (chunk: Buffer) => {
          if (replyToLose === undefined || !chunk.includes(replyToLose.marker)) return;
          losing = replyToLose;
          replyToLose = undefined;
        });
        // Registered before the pipe, so a dropped reply's first bytes never reach the client.
        upstream.on('data', () => {
          if (losing !== undefined) {
            client.resetAndDestroy();
            upstream.destroy();
            if (losing.then === 'down') void down();
            losing.lost();
            losing = undefined;
            return;
          }
          if (responsesToDrop === 0) return;
          responsesToDrop--;
          client.resetAndDestroy();
          upstream.destroy();
        });
        client.pipe(upstream).pipe(client);
      });
      server = relay;
      await new Promise<void>((resolve, reject) => {
        relay.once('error', reject);
        relay.listen({ port, host: '127.0.0.1' }, resolve);
      });
    },
    blackHole() {
      swallowing = true;
      for (const socket of sockets) swallow(() => {}, socket);
    },
    down,
    dropResponses(count) {
      responsesToDrop = count;
    },
    loseReplyTo(marker, then) {
      return new Promise<void>((lost) => {
        replyToLose = { marker: Buffer.from(marker), then, lost };
      });
    },
  };

  async function down(): Promise<void> {
    const relay = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    if (relay !== undefined) await new Promise<void>((resolve) => relay.close(() => resolve()));
  }
}

/** Reads and discards whatever arrives, forwarding nothing; the socket stays open. */
function swallow(track: (socket: net.Socket) => void, socket: net.Socket): void {
  track(socket);
  socket.unpipe();
  socket.on('error', () => socket.destroy());
  socket.resume();
}

/**
 * The single host of a mongodb:// URL, and the same URL (credentials, options) pointed at the relay; or
 * of an http:// URL (a test server), pointed at the relay.
 */
function relayed(url: string, relayPort: number): { host: string; port: number; url: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
    if (parsed.protocol === 'http:') {
      const target = { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 80) };
      parsed.host = `127.0.0.1:${relayPort}`;
      return { ...target, url: parsed.href.replace(/\/$/, '') };
    }
    if (parsed.protocol !== 'mongodb:' || parsed.hostname === '' || parsed.hostname.includes(',')) throw new Error('not single-host mongodb://');
  } catch {
    throw new Error('Outage tests relay a single-host mongodb:// URL, and the MongoDB URL of this run is not one');
  }
  const target = { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || 27017) };
  parsed.host = `127.0.0.1:${relayPort}`;
  parsed.searchParams.set('directConnection', 'true');
  return { ...target, url: parsed.href };
}
