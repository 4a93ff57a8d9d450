import { parse } from 'lossless-json';
import { afterAll, beforeAll, inject } from 'vitest';
import type { AppConfig } from '../../src/config/config.js';
import { startService, type RunningService, type StartOptions, type StopResult } from '../../src/server/start-service.js';
import { dropTestDatabase, freshMongoSettings } from './mongo-test-db.js';
import { OpenApiConformance } from './openapi-conformance.js';
import { TEST_API_KEY, testConfig } from './test-config.js';

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body text, for exact comparisons of int64 digits. */
  readonly text: string;
  /** The body parsed exactly (integers as bigint), or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** A string is sent as is; anything else is not allowed (serialize bigints yourself). */
  readonly body?: string;
  /** Send no Authorization header (default: the test key). */
  readonly anonymous?: boolean;
}

export interface TestServer {
  readonly service: RunningService;
  readonly url: string;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  /** POST /v1/pets with a JSON body text. */
  createPet(json: string): Promise<TestResponse>;
  stop(): Promise<StopResult>;
}

/**
 * Starts the real composed service on an ephemeral port; requests go over a real socket. In the
 * mongodb project each server gets a fresh database, dropped when it stops.
 */
export async function startTestServer(
  overrides: Partial<AppConfig> = {},
  options: StartOptions = {},
): Promise<TestServer> {
  const mongodb = inject('storage') === 'mongodb' ? freshMongoSettings('http') : undefined;
  const config = testConfig(mongodb === undefined ? overrides : { storage: 'mongodb', mongodb, ...overrides });
  const service = await startService(config, options);
  const url = service.url;
  const served = (path: string) => fetch(`${url}${path}`).then(async (response) => (await response.json()) as Record<string, unknown>);
  const conformance = new OpenApiConformance(await served('/v1/openapi.json'), await served('/openapi-operations.json'));
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (!options.anonymous && headers.Authorization === undefined && headers.authorization === undefined) {
      headers.Authorization = `Bearer ${TEST_API_KEY}`;
    }
    const response = await fetch(`${url}${path}`, { method, headers, body: options.body });
    const text = await response.text();
    // Every response a test sees must be one the served document describes.
    conformance.check(method, path, { status: response.status, headers: response.headers, text });
    let json: unknown;
    try {
      json = parse(text, null, (value) => (/^-?\d+$/.test(value) ? BigInt(value) : Number(value)));
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  };
  return {
    service,
    url,
    request,
    createPet: (json) =>
      request('POST', '/v1/pets', { headers: { 'Content-Type': 'application/json' }, body: json }),
    stop: async () => {
      const result = await service.stop();
      if (config.storage === 'mongodb') await dropTestDatabase(config.mongodb);
      return result;
    },
  };
}

/**
 * Starts a test server before the tests of the enclosing file or describe and stops it after them.
 * The returned server delegates to the running one; using it outside that span throws.
 */
export function useTestServer(overrides: Partial<AppConfig> = {}, options: StartOptions = {}): TestServer {
  let running: TestServer | undefined;
  beforeAll(async () => {
    running = await startTestServer(overrides, options);
  });
  afterAll(async () => {
    await running?.stop();
    running = undefined;
  });
  const current = (): TestServer => {
    if (running === undefined) {
      throw new Error('useTestServer: the server runs only from its beforeAll to its afterAll; use it in a test or a later hook');
    }
    return running;
  };
  return {
    get service() {
      return current().service;
    },
    get url() {
      return current().url;
    },
    request: (method, path, requestOptions) => current().request(method, path, requestOptions),
    createPet: (json) => current().createPet(json),
    // Stopped early, it is not stopped again in afterAll.
    stop: () => {
      const server = current();
      running = undefined;
      return server.stop();
    },
  };
}
