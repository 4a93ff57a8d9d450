import type { Request } from 'autocannon';
import { fire, newPetBody, type LoadResult } from './load.js';
import { cpuSeconds, type BenchServer } from './servers.js';

export interface Workload {
  readonly name: string;
  readonly read: boolean;
  /** The request shape for a server; undefined when the server cannot serve it (the workload is skipped). */
  readonly request: (target: Target) => Request | undefined;
}

/** What a workload needs to know about one server's store. */
export interface Target {
  readonly server: BenchServer;
  /** The stored ids (ascending, not necessarily dense). */
  readonly ids: readonly number[];
  /** A page deep in the store reached through the `next` links; undefined without pagination. */
  readonly deepPage: string | undefined;
}

export interface Measurement extends LoadResult {
  /** Server CPU (user + system) per request, microseconds. */
  readonly cpuUsPerReq: number;
}

export const WORKLOADS: readonly Workload[] = [
  { name: 'GET /v1/pets?limit=20', read: true, request: () => ({ method: 'GET', path: '/v1/pets?limit=20' }) },
  {
    name: 'GET /v1/pets?status=available&limit=20',
    read: true,
    request: () => ({ method: 'GET', path: '/v1/pets?status=available&limit=20' }),
  },
  {
    name: 'GET /v1/pets/{id} (random)',
    read: true,
    request: ({ ids }) => ({
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: `/v1/pets/${ids[Math.floor(Math.random() * ids.length)]}` }),
    }),
  },
  {
    name: 'POST /v1/pets',
    read: false,
    request: () => {
      let n = 0;
      return { method: 'POST', path: '/v1/pets', setupRequest: (req) => ({ ...req, body: newPetBody(n++) }) };
    },
  },
  {
    name: 'GET next page, 90% deep (limit=20)',
    read: true,
    request: ({ deepPage }) => (deepPage === undefined ? undefined : { method: 'GET', path: deepPage }),
  },
];

/** One timed run of a workload against a server, with the server's CPU time read around it. */
export async function measure(
  target: Target,
  request: Request,
  settings: { apiKey: string; connections: number; duration: number },
): Promise<Measurement> {
  const cpuBefore = cpuSeconds(target.server.pid);
  const result = await fire({ url: target.server.url, request, ...settings });
  const cpu = cpuSeconds(target.server.pid) - cpuBefore;
  return { ...result, cpuUsPerReq: (cpu * 1e6) / Math.max(1, result.requests) };
}
