import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** http://127.0.0.1:port */
  readonly url: string;
  /** Requests routed to each backend port so far. */
  readonly routed: Map<number, number>;
  /** Resolves once the backend on `port` answers /readyz 200 (and is routed to again). */
  ready(port: number): Promise<void>;
  close(): Promise<void>;
}

const POLL_EVERY_MS = 100;
const POLL_TIMEOUT_MS = 1000;
// As Kubernetes' failureThreshold: one slow or failed probe of a busy instance does not take it out of routing.
const FAILURES_TO_UNREADY = 3;

/**
 * A load balancer in front of service instances on 127.0.0.1: round robin over the instances whose /readyz
 * answers 200, polled every 100 ms; three failed polls in a row (not 200, or no answer within 1 s) take an
 * instance out, one answered 200 puts it back. When none is ready it routes to those that answer at all (then to
 * all), as Envoy's panic mode and AWS target groups do, so a storage outage is answered by the service rather
 * than by the balancer. It never retries: an error between it and an instance is a 502 the test sees.
 */
export async function startRoundRobinProxy(ports: readonly number[]): Promise<RoundRobinProxy> {
  // A connection per request: a reused idle connection can meet the instance's keep-alive close (ECONNRESET),
  // which a balancer would retry and this one would report as a 502.
  const agent = new Agent({ keepAlive: false });
  const ready = new Set<number>();
  /** Instances whose last probe got an HTTP answer, whatever its status. */
  const answering = new Set<number>();
  const routed = new Map<number, number>(ports.map((port) => [port, 0]));
  let next = 0;
  let closed = false;

  const poll = async (port: number) => {
    let failures = 0;
    while (!closed) {
      const status = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(POLL_TIMEOUT_MS) }).then(
        async (response) => {
          await response.body?.cancel();
          return response.status;
        },
        () => 0,
      );
      if (status === 0) answering.delete(port);
      else answering.add(port);
      failures = status === 200 ? 0 : failures + 1;
      if (failures === 0) ready.add(port);
      else if (failures >= FAILURES_TO_UNREADY) ready.delete(port);
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
    }
  };
  const polls = ports.map(poll);

  const pick = (): number => {
    const candidates = [ready, answering, new Set(ports)].map((set) => ports.filter((port) => set.has(port)));
    const pool = candidates.find((ports) => ports.length > 0)!;
    const port = pool[next++ % pool.length]!;
    routed.set(port, routed.get(port)! + 1);
    return port;
  };

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const upstream = request(
      { host: '127.0.0.1', port: pick(), method: incoming.method, path: incoming.url, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', (error) => {
      if (outgoing.headersSent) outgoing.destroy(error);
      else outgoing.writeHead(502, { 'Content-Type': 'text/plain' }).end(`proxy: ${error.message}`);
    });
    incoming.pipe(upstream);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routed,
    ready: async (port) => {
      while (!ready.has(port)) await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS / 2));
    },
    close: async () => {
      closed = true;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(polls);
      agent.destroy();
    },
  };
}
