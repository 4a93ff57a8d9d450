import { randomUUID } from 'node:crypto';
import { newPetBody, type RequestSource } from './load.js';
import type { BenchServer } from './servers.js';

export interface Workload {
  /** Short name for --workloads. */
  readonly key: string;
  readonly name: string;
  readonly read: boolean;
  /** The requests for a server; undefined when the server cannot serve the workload (it is skipped). */
  readonly requests: (target: Target) => RequestSource | undefined;
}

/** What a workload needs to know about one server's store. */
export interface Target {
  readonly server: BenchServer;
  /** The stored ids (ascending, not necessarily dense). */
  readonly ids: readonly number[];
  /** A page deep in the store reached through the `next` links; undefined without pagination. */
  readonly deepPage: string | undefined;
}

export const WORKLOADS: readonly Workload[] = [
  { key: 'list', name: 'GET /v1/pets?limit=20', read: true, requests: () => ({ method: 'GET', path: '/v1/pets?limit=20' }) },
  {
    key: 'filter',
    name: 'GET /v1/pets?status=available&limit=20',
    read: true,
    requests: () => ({ method: 'GET', path: '/v1/pets?status=available&limit=20' }),
  },
  {
    key: 'get',
    name: 'GET /v1/pets/{id} (random)',
    read: true,
    requests: ({ ids }) => () => ({ method: 'GET', path: `/v1/pets/${ids[Math.floor(Math.random() * ids.length)]}` }),
  },
  {
    key: 'create',
    name: 'POST /v1/pets',
    read: false,
    requests: () => {
      let n = 0;
      return () => ({ method: 'POST', path: '/v1/pets', body: newPetBody(n++) });
    },
  },
  {
    // As a client that retries safely sends every create (the first-party client does); the yardsticks ignore the key.
    key: 'create-keyed',
    name: 'POST /v1/pets with a fresh Idempotency-Key',
    read: false,
    requests: () => {
      let n = 0;
      return () => ({ method: 'POST', path: '/v1/pets', body: newPetBody(n++), headers: { 'idempotency-key': randomUUID() } });
    },
  },
  {
    key: 'deep',
    name: 'GET next page, 90% deep (limit=20)',
    read: true,
    requests: ({ deepPage }) => (deepPage === undefined ? undefined : { method: 'GET', path: deepPage }),
  },
];

export const WORKLOAD_KEYS = ['list', 'filter', 'get', 'create', 'create-keyed', 'deep'] as const;
/** Run unless --workloads names others: create-keyed only with --storage mongodb, where a key costs round trips. */
export const defaultWorkloads = (storage: 'memory' | 'mongodb'): readonly string[] =>
  storage === 'mongodb' ? WORKLOAD_KEYS : WORKLOAD_KEYS.filter((key) => key !== 'create-keyed');
