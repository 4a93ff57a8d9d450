import { expect } from 'vitest';
import { DOCS_ASSETS } from '../../src/adapters/http/openapi/docs-page.js';
import type { TestResponse } from '../support/http-harness.js';
import { authOutcome, UNIMPLEMENTED_METHODS, type FuzzRequest } from './hostile-requests.js';
import { INT64_MAX, INT64_MIN, PET_STATUSES, type NewPetFields } from './json-bodies.js';

export interface StoredPet extends NewPetFields {
  readonly id: bigint;
}

/** The Pet JSON the service must write: the whitelisted fields in order, int64 as bare digits. */
export function petText(pet: StoredPet): string {
  const status = pet.status === undefined ? '' : `,"status":${JSON.stringify(pet.status)}`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`;
}

/** Asserts a parsed (lossless) value is exactly a Pet: only its four keys, each of its type and range. */
export function expectPetShape(value: unknown): StoredPet {
  expect(typeof value === 'object' && value !== null && !Array.isArray(value), 'a Pet is an object').toBe(true);
  const pet = value as Record<string, unknown>;
  const keys = Object.keys(pet);
  expect(keys.every((key) => ['id', 'name', 'categoryId', 'status'].includes(key)), `Pet keys ${keys.join()}`).toBe(true);
  expect(typeof pet.id).toBe('bigint');
  expect(typeof pet.categoryId).toBe('bigint');
  expect(pet.id as bigint).toBeGreaterThan(0n);
  expect(pet.id as bigint).toBeLessThanOrEqual(INT64_MAX);
  expect(pet.categoryId as bigint).toBeGreaterThanOrEqual(INT64_MIN);
  expect(pet.categoryId as bigint).toBeLessThanOrEqual(INT64_MAX);
  expect(typeof pet.name).toBe('string');
  const name = pet.name as string;
  expect(name.length >= 1 && [...name].length <= 255 && /\S/.test(name), 'name 1..255 code points, not blank').toBe(true);
  if ('status' in pet) expect(PET_STATUSES).toContain(pet.status);
  return pet as unknown as StoredPet;
}

/** Asserts an Error body: exactly {code, message, status}, status equal to the HTTP status. */
export function expectErrorBody(response: TestResponse, code?: string): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.status).toBe(response.status);
  expect(body.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  expect(typeof body.message === 'string' && body.message.length > 0).toBe(true);
  if (code !== undefined) expect(body.code).toBe(code);
}

/** What the fuzzer knows the store holds: every pet a 201 announced, in creation (= id) order. */
export class ObservedStore {
  readonly pets: StoredPet[] = [];
  created = 0;

  add(pet: StoredPet): void {
    const last = this.pets.at(-1);
    if (last !== undefined) expect(pet.id, 'ids ascend').toBeGreaterThan(last.id);
    this.pets.push(pet);
    this.created++;
  }

  find(id: bigint): StoredPet | undefined {
    return this.pets.find((pet) => pet.id === id);
  }

  firstPage(limit: number, status: string | undefined): StoredPet[] {
    return this.pets.filter((pet) => status === undefined || pet.status === status).slice(0, limit);
  }
}

/** Only these paths may ever answer 2xx: the documented routes, exactly. */
function routeOf(method: string, path: string): string | undefined {
  const pathname = new URL(`http://x${path}`).pathname;
  const read = method === 'GET' || method === 'HEAD';
  if (read && ['/healthz', '/readyz', '/v1/openapi.json', '/v1/pets', '/metrics'].includes(pathname)) return `GET ${pathname}`;
  if (method === 'POST' && pathname === '/v1/pets') return 'POST /v1/pets';
  if (read && /^\/v1\/pets\/[^/]+$/.test(pathname)) return 'GET /v1/pets/{petId}';
  if (read && pathname === '/docs') return 'GET /docs';
  if (read && isDocsAsset(pathname)) return 'GET /docs/assets/{asset}';
  return undefined;
}

/** The router decodes the segment before the allow-list sees it, so an encoded allowed name is served too. */
function isDocsAsset(pathname: string): boolean {
  const segment = /^\/docs\/assets\/([^/]+)$/.exec(pathname)?.[1];
  if (segment === undefined) return false;
  try {
    return DOCS_ASSETS.has(decodeURIComponent(segment));
  } catch {
    return false;
  }
}

const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Every invariant that holds for any request; records created pets in `store`. */
export function checkResponse(request: FuzzRequest, response: TestResponse, store: ObservedStore): void {
  const { status } = response;
  const where = `${request.method} ${request.path} -> ${status} ${response.text.slice(0, 200)}`;
  const unimplemented = (UNIMPLEMENTED_METHODS as readonly string[]).includes(request.method);
  expect(status < 500 || (status === 501 && unimplemented), `no 5xx: ${where}`).toBe(true);
  expect(response.headers.get('x-content-type-options'), where).toBe('nosniff');
  const sentId = request.headers['X-Request-Id']?.replace(/^[ \t]+|[ \t]+$/g, '');
  const echoed = response.headers.get('x-request-id');
  if (sentId !== undefined && SAFE_REQUEST_ID.test(sentId)) expect(echoed, where).toBe(sentId);
  else expect(echoed, where).toMatch(/^[0-9a-f-]{36}$/);

  if (status >= 400 && request.method !== 'HEAD') expectErrorBody(response);
  const expected = request.expected;
  if (expected?.kind === 'error') {
    expect(status, where).toBe(expected.status);
    if (request.method !== 'HEAD') expectErrorBody(response, expected.code);
  }
  if (status < 200 || status > 299) {
    expect(expected?.kind === 'created' || expected?.kind === 'list', `expected success: ${where}`).toBe(false);
    return;
  }
  const route = routeOf(request.method, request.path);
  expect(route, `2xx only on documented routes: ${where}`).toBeDefined();
  if (route!.includes('/pets')) expect(authOutcome(request.authorization), `2xx only with the key: ${where}`).toBe('ok');
  if (request.method === 'HEAD') return;
  checkSuccess(route!, request, response, store, where);
}

function checkSuccess(route: string, request: FuzzRequest, response: TestResponse, store: ObservedStore, where: string): void {
  const expected = request.expected;
  if (route === 'POST /v1/pets') {
    expect(response.status, where).toBe(201);
    const pet = expectPetShape(response.json);
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    expect(response.text, 'Pet JSON written field by field').toBe(petText(pet));
    store.add(pet);
    if (expected?.kind === 'created') expect(response.text, where).toBe(petText({ id: pet.id, ...expected.pet }));
  } else if (route === 'GET /v1/pets') {
    expect(response.status, where).toBe(200);
    expect(Array.isArray(response.json), where).toBe(true);
    const pets = (response.json as unknown[]).map(expectPetShape);
    for (const pet of pets) expect(petText(pet)).toBe(petText(store.find(pet.id)!));
    if (expected?.kind === 'list') expect(response.text, where).toBe(`[${store.firstPage(expected.limit, expected.status).map(petText).join(',')}]`);
  } else if (route === 'GET /v1/pets/{petId}') {
    expect(response.status, where).toBe(200);
    const pet = expectPetShape(response.json);
    const stored = store.find(pet.id);
    expect(stored, `a pet the fuzzer created: ${where}`).toBeDefined();
    expect(response.text).toBe(petText(stored!));
  } else if (route === 'GET /metrics') {
    expect(response.text).toMatch(/^# HELP /);
  } else if (route.startsWith('GET /docs')) {
    expect(response.headers.get('content-type'), where).toMatch(/^(text\/html|text\/css|text\/javascript|image\/png);?/);
  } else if (route === 'GET /v1/openapi.json') {
    expect((JSON.parse(response.text) as { openapi: unknown }).openapi).toBe('3.1.0');
  } else {
    expect(JSON.parse(response.text)).toEqual({ status: route === 'GET /healthz' ? 'ok' : 'ready' });
  }
  if (expected?.kind === 'getPet') {
    expect(store.find(expected.id), where).toBeDefined();
  }
}

/** getPet for an id the store lacks must be 404 pet_not_found; called for getPet expectations that did not succeed. */
export function checkGetPetMiss(request: FuzzRequest, response: TestResponse, store: ObservedStore): void {
  if (request.expected?.kind !== 'getPet' || response.status === 200) return;
  expect(store.find(request.expected.id), `${request.path} exists but answered ${response.status}`).toBeUndefined();
  expect(response.status).toBe(404);
  expectErrorBody(response, 'pet_not_found');
}
