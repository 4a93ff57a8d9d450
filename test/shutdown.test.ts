import 'reflect-metadata';
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { compose, openStorage, TOKENS } from '../src/container.js';
import { SAME_DELIVERY_MS } from '../src/server/stop-on-signals.js';
import { portOf, startListening, spawnService, type ListeningService } from './support/service-process.js';
import { TEST_API_KEY, testConfig } from './support/test-config.js';


interface RawConnection {
  readonly socket: Socket;
  readonly received: () => string;
  /** The socket error (ECONNRESET ...), if any, once it closed. */
  readonly closed: Promise<string | undefined>;
}

/** A raw connection that collects everything the server sends until it closes. */
function rawConnection(port: number): RawConnection {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let error: string | undefined;
  socket.setEncoding('utf8').on('data', (data: string) => (received += data));
  socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code ?? cause.message));
  return { socket, received: () => received, closed: new Promise((resolve) => socket.once('close', () => resolve(error))) };
}

// Status lines: at the start, or right after the previous response's body (no line break follows a JSON body).
const statuses = (raw: string) => [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const BODY = '{"name":"Slowpoke","categoryId":7}';
const SLOW_POST_HEAD =
  `POST /v1/pets HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${TEST_API_KEY}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n`;

/** Sends one request on a new connection and waits until the server closes it. */
async function oneRequest(port: number, request: string): Promise<string> {
  const client = rawConnection(port);
  client.socket.write(request);
  await client.closed;
  return client.received();
}

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
const CLOSE = /^Connection: close\r$/im;

describe('graceful shutdown of the real process', () => {
  it('on SIGTERM answers unready for the grace, then refuses new connections, finishes the request in flight and exits 0', async () => {
    const child = await startListening({ SHUTDOWN_GRACE_MS: '1000', SHUTDOWN_TIMEOUT_MS: '5000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' });
    // An idle keep-alive connection: it must not hold the shutdown up for the keep-alive timeout.
    const idle = rawConnection(child.port);
    idle.socket.write(GET('/healthz'));
    // A slow request: headers now, body after the signal.
    const slow = rawConnection(child.port);
    slow.socket.write(SLOW_POST_HEAD + BODY.slice(0, 10));
    await sleep(200);
    expect(statuses(idle.received())).toEqual([200]);

    const signalled = performance.now();
    child.process.kill('SIGTERM');
    await child.logged('shutting down: draining requests');
    // The grace: new connections are still answered, unready, and closed after their response.
    const probe = await oneRequest(child.port, GET('/readyz'));
    expect(statuses(probe)).toEqual([503]);
    expect(probe).toMatch(CLOSE);
    // The idle connection's next request is answered too, and its connection closed after it.
    idle.socket.write(GET('/healthz'));
    await idle.closed;
    expect(statuses(idle.received())).toEqual([200, 200]);
    expect(idle.received()).toMatch(CLOSE);
    expect(performance.now() - signalled).toBeLessThan(1000);

    await child.logged('shutting down: no longer accepting connections');
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(1000);
    // The listening socket is released on the next turn of the child's event loop; a connection racing
    // that turn would be reset rather than refused.
    await sleep(100);
    const refused = connect(child.port, '127.0.0.1');
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');

    // The rest of the body: the request completes, and the server closes the connection after it.
    slow.socket.write(BODY.slice(10));
    expect(await slow.closed).toBeUndefined();
    const raw = slow.received();
    expect(statuses(raw)).toEqual([201]);
    expect(raw).toContain('"name":"Slowpoke"');
    expect(raw).toMatch(CLOSE);

    expect(await child.exited).toBe(0);
    const stopped = await child.logged('stopped');
    expect(stopped).toMatchObject({ forced: false });
    expect(performance.now() - signalled).toBeLessThan(4000);
  });

  it('on SIGINT with a request that never completes, cuts it at SHUTDOWN_TIMEOUT_MS from the signal and exits 1', async () => {
    const child = await startListening({ SHUTDOWN_GRACE_MS: '100', SHUTDOWN_TIMEOUT_MS: '400' });
    const stuck = rawConnection(child.port);
    stuck.socket.write(SLOW_POST_HEAD + BODY.slice(0, 10));
    await sleep(200);
    const signalled = performance.now();
    child.process.kill('SIGINT');
    await stuck.closed;
    expect(await child.exited).toBe(1);
    const elapsed = performance.now() - signalled;
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(2000);
    expect(await child.logged('stopped at the deadline')).toMatchObject({ forced: true });
    expect(statuses(stuck.received())).toEqual([]);
  });

  it('with nothing in flight, stops as soon as the grace is over', async () => {
    const child = await startListening({ SHUTDOWN_GRACE_MS: '200' });
    const signalled = performance.now();
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const elapsed = performance.now() - signalled;
    expect(elapsed).toBeGreaterThanOrEqual(200);
    expect(elapsed).toBeLessThan(1200);
  });

  it('exits 1 at once on a second signal, without waiting for the grace', async () => {
    const child = await startListening({});
    child.process.kill('SIGTERM');
    await child.logged('shutting down: draining requests');
    const signalled = performance.now();
    child.process.kill('SIGINT');
    expect(await child.exited).toBe(1);
    expect(performance.now() - signalled).toBeLessThan(1000);
    expect(await child.logged('second signal: exiting without waiting')).toMatchObject({ signal: 'SIGINT' });
  });
});

const POST = SLOW_POST_HEAD + BODY;

interface GroupLeader extends ListeningService {
  /** The service's own pid (npm is the group leader). */
  readonly nodePid: number;
}

/** `npm start` as a terminal or systemd runs it: npm and the service in a process group of their own. */
async function npmStartInItsOwnGroup(env: Record<string, string>): Promise<GroupLeader> {
  const child = spawnService({ command: ['npm', 'start'], detached: true, env });
  const listening = await child.logged('listening');
  return { ...child, port: portOf(listening), nodePid: Number(listening.pid) };
}

/** A request whose body is still to come: in flight until `finish()`. */
async function requestInFlight(port: number) {
  const client = rawConnection(port);
  client.socket.write(SLOW_POST_HEAD + BODY.slice(0, 10));
  await sleep(200);
  return {
    finish: async () => {
      client.socket.write(BODY.slice(10));
      await client.closed;
      return statuses(client.received());
    },
  };
}

describe('one signal to the process group of npm start', () => {
  // A terminal's Ctrl-C and systemd's default stop signal npm and node alike, and npm passes its copy on.
  it.each(['SIGTERM', 'SIGINT'] as const)('drains on %s like a signal to node alone and exits 0', async (signal) => {
    const group = await npmStartInItsOwnGroup({ SHUTDOWN_GRACE_MS: '800', SHUTDOWN_TIMEOUT_MS: '5000' });
    const inFlight = await requestInFlight(group.port);
    const signalled = performance.now();
    process.kill(-group.process.pid!, signal);
    await group.logged('shutting down: no longer accepting connections');
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(800);
    expect(await inFlight.finish()).toEqual([201]);
    expect(await group.exited).toBe(0);
    expect(await group.logged('stopped')).toMatchObject({ forced: false });
    expect(group.lines().map((line) => line.msg)).not.toContain('second signal: exiting without waiting');
  });

  it('takes a repeat of the first signal right after it for the same delivery (a parent passing its copy on)', async () => {
    const group = await npmStartInItsOwnGroup({ SHUTDOWN_GRACE_MS: '800', SHUTDOWN_TIMEOUT_MS: '5000', LOG_LEVEL: 'debug' });
    const inFlight = await requestInFlight(group.port);
    process.kill(-group.process.pid!, 'SIGTERM');
    await group.logged('shutting down: draining requests');
    // Sent once the first was handled, so the kernel cannot merge the two as it may merge npm's copy.
    process.kill(group.nodePid, 'SIGTERM');
    expect(await group.logged('signal repeated at once: the same delivery, passed on by a parent process')).toMatchObject({ signal: 'SIGTERM' });
    expect(await inFlight.finish()).toEqual([201]);
    expect(await group.exited).toBe(0);
  });

  it('exits 1 at once on the same signal sent again later', async () => {
    const group = await npmStartInItsOwnGroup({ SHUTDOWN_GRACE_MS: '5000', SHUTDOWN_TIMEOUT_MS: '9000' });
    process.kill(-group.process.pid!, 'SIGTERM');
    await group.logged('shutting down: draining requests');
    await sleep(SAME_DELIVERY_MS + 200);
    const again = performance.now();
    process.kill(-group.process.pid!, 'SIGTERM');
    expect(await group.exited).toBe(1);
    expect(performance.now() - again).toBeLessThan(1000);
    expect(await group.logged('second signal: exiting without waiting')).toMatchObject({ signal: 'SIGTERM' });
  });
});

describe('a shutdown that loses nothing that arrived', () => {
  it('answers every request sent before SIGTERM, even those still queued when the signal lands', async () => {
    // The grace only has to outlast reading the queued requests; generous, for a loaded machine.
    const child = await startListening({ SHUTDOWN_GRACE_MS: '1000', SHUTDOWN_TIMEOUT_MS: '5000' });
    // Stopped, the process accepts nothing: the connections wait in the kernel's queue, their requests in its buffers.
    child.process.kill('SIGSTOP');
    const clients = Array.from({ length: 5 }, () => rawConnection(child.port));
    await Promise.all(clients.map(({ socket }) => once(socket, 'connect')));
    await Promise.all(clients.map(({ socket }) => new Promise((resolve) => socket.write(POST, resolve))));
    child.process.kill('SIGTERM');
    child.process.kill('SIGCONT');

    // Whether a request is read before or after the signal handler runs is up to the event loop: either way
    // it is answered (those read after carry Connection: close), and the server closes every connection.
    const errors = await Promise.all(clients.map(({ closed }) => closed));
    const answers = clients.map(({ received }) => statuses(received()));
    expect({ errors, answers }).toEqual({ errors: Array(5).fill(undefined), answers: Array(5).fill([201]) });
    expect(await child.exited).toBe(0);
  });
});

describe('readiness while draining', () => {
  it('answers 503 unavailable once shutdown began, though storage still answers', async () => {
    let draining = false;
    const storage = await openStorage(testConfig(), { logger: pino({ level: 'silent' }) });
    const container = compose(testConfig(), {
      storage,
      apiKeys: [TEST_API_KEY],
      onUnexpectedError: () => undefined,
      logger: pino({ level: 'silent' }),
      isDraining: () => draining,
    });
    const server = container.get(TOKENS.httpApp).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    try {
      expect((await fetch(url)).status).toBe(200);
      draining = true;
      const response = await fetch(url);
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: 'unavailable' });
    } finally {
      server.close();
    }
  });
});
