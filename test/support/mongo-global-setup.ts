/**
 * vitest globalSetup of the mongodb project: starts ONE MongoDB-wire server per run (see
 * ./mongo-server.ts for which) and provides its url and kind; tests read them with inject().
 * Each test file or store then uses its own fresh database (./mongo-test-db.ts).
 */
import type { TestProject } from 'vitest/node';
import { startMongoServer, type MongoServerKind, type RunningMongo } from './mongo-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Which storage the HTTP suite runs on (vitest.config.ts, per project). */
    storage: 'memory' | 'mongodb';
    mongoUrl: string;
    mongoKind: MongoServerKind;
  }
}

let server: RunningMongo | undefined;

export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  server = await startMongoServer();
  provide('mongoUrl', server.url);
  provide('mongoKind', server.kind);
  return async function teardown() {
    await server?.stop();
    server = undefined;
  };
}
