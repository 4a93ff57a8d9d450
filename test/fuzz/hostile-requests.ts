import fc from 'fast-check';
import { TEST_API_KEY } from '../support/test-config.js';
import {
  anyJson,
  hostileKey,
  hostileNumberText,
  integerOf,
  hostileString,
  jsonText,
  nest,
  newPetLikeNode,
  newPetNode,
  newPetOutcome,
  PET_STATUSES,
  validNewPet,
  type CreateOutcome,
  JsonObject,
  type JsonNode,
} from './json-bodies.js';

/** A request as the fuzzer sends it, with what the service must answer when that can be known in advance. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  /** undefined: no Authorization header at all. */
  readonly authorization: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly expected?: Expected;
}

export type Expected =
  | CreateOutcome
  | { readonly kind: 'error'; readonly status: number; readonly code: string }
  | { readonly kind: 'list'; readonly limit: number; readonly status?: string }
  /** 200 with the pet when it exists, else 404 pet_not_found. */
  | { readonly kind: 'getPet'; readonly id: bigint };

/** encodeURIComponent, with lone surrogates (which it refuses) sent as U+FFFD like any UTF-8 encoder does. */
const percentEncode = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udfff]/gu, '\ufffd'));

/** Header values travel as bytes: non-Latin-1 text is sent as its UTF-8 bytes, as a raw client would. */
const asHeaderBytes = (text: string) => String.fromCharCode(...new TextEncoder().encode(text));

// Printable ASCII and Latin-1: control characters are refused by Node's HTTP parser before the app runs.
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

export const authorizationHeader: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 24, arbitrary: fc.constantFrom(`Bearer ${TEST_API_KEY}`, `bearer ${TEST_API_KEY}`, `BEARER  ${TEST_API_KEY}`, ` Bearer ${TEST_API_KEY} `) },
  fc.constant(undefined),
  fc.constantFrom('', 'Bearer', 'Bearer ', `Basic ${Buffer.from(`u:${TEST_API_KEY}`).toString('base64')}`, `Token ${TEST_API_KEY}`,
    `Bearer ${TEST_API_KEY} x`, `Bearer\t${TEST_API_KEY}`, `Bearer ${TEST_API_KEY},Bearer ${TEST_API_KEY}`, `Bearer "${TEST_API_KEY}"`),
  fc.integer({ min: 1, max: TEST_API_KEY.length - 1 }).map((n) => `Bearer ${TEST_API_KEY.slice(0, n)}`),
  fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}=*$/).map((token) => `Bearer ${token}`),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map((token) => asHeaderBytes(`Bearer ${TEST_API_KEY}${token}`)),
  fc.integer({ min: 1_000, max: 12_000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
  headerText(60),
);

/** What the key check must conclude, as docs/api.md states it: `Bearer <key>`, scheme in any case. */
export function authOutcome(header: string | undefined): 'ok' | 'missing_api_key' | 'invalid_api_key' {
  if (header === undefined) return 'missing_api_key';
  const trimmed = header.replace(/^[ \t]+|[ \t]+$/g, '');
  const match = /^bearer +(\S+)$/i.exec(trimmed);
  return match !== null && match[1] === TEST_API_KEY ? 'ok' : 'invalid_api_key';
}

const requestId = fc.option(
  fc.oneof(fc.stringMatching(/^[\w.:-]{1,128}$/), fc.constant('x'.repeat(129)), headerText(40), fc.constant('a\u00e9b')),
  { nil: undefined },
);

/** Content types and whether the body must be accepted as JSON ('json'), refused (415), or either. */
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(['application/json', 'json'], ['application/json; charset=utf-8', 'json'], ['application/json;charset=UTF-8', 'json']) },
  fc.constantFrom(
    ['text/plain', 415], ['application/x-www-form-urlencoded', 415], ['multipart/form-data; boundary=x', 415],
    ['application/json; charset=latin1', 415], ['application/json; charset=utf-16', 415], ['application/xml', 415],
    [undefined, 415],
  ),
  fc.constantFrom(['', '?'], ['application/json; foo=bar', '?'], ['*/*', '?'], ['application/*', '?'],
    ['application/vnd.api+json', '?'], ['APPLICATION/JSON', '?'], ['application/json; charset="utf-8"', '?']),
  headerText(40).map((type) => [type, '?']),
) as fc.Arbitrary<[string | undefined, 'json' | 415 | '?']>;

const commonHeaders = fc.record({ authorization: authorizationHeader, requestId }).map(({ authorization, requestId }) => {
  const headers: Record<string, string> = requestId === undefined ? {} : { 'X-Request-Id': requestId };
  return { authorization, headers };
});

/** JSON bodies with a known expected outcome. */
const knownBody: fc.Arbitrary<{ node: JsonNode; escapeAll: boolean }> = fc.record({
  node: fc.oneof(
    { weight: 3, arbitrary: validNewPet.map(newPetNode) },
    { weight: 4, arbitrary: newPetLikeNode },
    anyJson,
    fc.tuple(validNewPet, fc.integer({ min: 1, max: 40 }), fc.boolean()).map(([pet, levels, asObject]) => {
      return new JsonObject([...newPetNode(pet).entries, ['deep', nest('x', levels, asObject)]]);
    }),
    fc.tuple(validNewPet, fc.integer({ min: 28, max: 40 }), fc.boolean()).map(([pet, levels, asObject]) => nest(newPetNode(pet), levels, asObject)),
  ),
  escapeAll: fc.boolean(),
});

/** Bodies that are not JSON at all, or JSON with nothing known about it. */
const rawBody = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.anything().map((value) => {
    try {
      return JSON.stringify(value) ?? 'undefined';
    } catch {
      return String(typeof value);
    }
  }),
  knownBody.chain(({ node }) => fc.nat(40).map((cut) => jsonText(node).slice(0, -1 - cut))),
  fc.constantFrom('{"name":"a","name":"b","categoryId":1}', '{"name":"a","categoryId":1,"categoryId":2}', '{', '[', 'nul',
    '{"name":"a",}', "{'name':'a'}", '{"name":"\\ud800","categoryId":1e400}', '\ufeff{"name":"bom","categoryId":1}',
    '{"name":"a","categoryId":NaN}', '{"name":"a","categoryId":Infinity}', '{"name":"a","categoryId":0x10}',
    `{"name":"big","categoryId":1,"pad":"${'x'.repeat(70_000)}"}`, '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
    '', '   ', '\n'),
);

const createPet: fc.Arbitrary<FuzzRequest> = fc
  .record({ common: commonHeaders, type: contentType, body: fc.oneof({ weight: 3, arbitrary: knownBody }, rawBody) })
  .map(({ common, type: [type, typeOutcome], body }) => {
    const text = typeof body === 'string' ? body : jsonText(body.node, { escapeAll: body.escapeAll });
    let expected: Expected | undefined;
    if (authOutcome(common.authorization) === 'ok' && text !== '') {
      if (typeOutcome === 415) expected = { kind: 'error', status: 415, code: 'unsupported_media_type' };
      else if (typeOutcome === 'json' && typeof body !== 'string') expected = newPetOutcome(body.node);
    }
    const headers = type === undefined ? common.headers : { ...common.headers, 'Content-Type': type };
    return { method: 'POST', path: '/v1/pets', authorization: common.authorization, headers, body: text, expected };
  });

const queryValue = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map(String),
  fc.constantFrom(...PET_STATUSES),
  hostileNumberText,
  hostileString,
  fc.constantFrom('0', '101', '-1', '1e2', '1.0', ' 1', '１', '0x10', 'NaN', '', 'x'.repeat(3000), '00050', '+5'),
);

const queryKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('limit', 'status', 'cursor') },
  fc.constantFrom('status[$ne]', 'limit[]', 'status[]', 'limit[$gt]', '$where', 'LIMIT', 'Status', 'limit ', 'cursor[]'),
  hostileKey,
);

/** Query strings built from pairs; `garbage` adds raw percent-encoding junk that decoders must survive. */
const listPets: fc.Arbitrary<FuzzRequest> = fc
  .record({
    common: commonHeaders,
    pairs: fc.oneof(
      fc
        .record({ limit: fc.integer({ min: 1, max: 100 }).map(String), status: fc.constantFrom(...PET_STATUSES) }, { requiredKeys: [] })
        .map((query) => Object.entries(query)),
      fc.array(fc.tuple(queryKey, queryValue), { maxLength: 4 }),
    ),
    garbage: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%ff%fe', '&&', '=', '+', '%2', 'limit=%31', '%C0%AF'),
    ),
    trailingSlash: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, fc.constant(true)),
  })
  .map(({ common, pairs, garbage, trailingSlash }) => {
    const encoded = pairs.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`);
    if (garbage !== undefined) encoded.push(garbage);
    const query = encoded.length === 0 ? '' : `?${encoded.join('&')}`;
    const path = `/v1/pets${trailingSlash ? '/' : ''}${query}`;
    const expected: Expected | undefined =
      trailingSlash && authOutcome(common.authorization) === 'ok'
        ? { kind: 'error', status: 404, code: 'not_found' }
        : listOutcome(common.authorization, pairs, garbage);
    return { method: 'GET', path, authorization: common.authorization, headers: common.headers, expected };
  });

function listOutcome(authorization: string | undefined, pairs: readonly (readonly [string, string])[], garbage: string | undefined): Expected | undefined {
  if (authOutcome(authorization) !== 'ok' || garbage !== undefined) return undefined;
  const keys = pairs.map(([key]) => key);
  const invalid = { kind: 'error', status: 400, code: 'validation_failed' } as const;
  if (keys.some((key) => !['limit', 'status', 'cursor'].includes(key)) || new Set(keys).size !== keys.length) return invalid;
  if (keys.includes('cursor')) return undefined;
  const limit = pairs.find(([key]) => key === 'limit')?.[1] ?? '20';
  const status = pairs.find(([key]) => key === 'status')?.[1];
  // A JSON number whose value is an integer from 1 to 100 (`20`, `20.0`, `2e1`).
  const value = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(limit) ? integerOf(limit) : undefined;
  if (value === undefined || value < 1n || value > 100n) return invalid;
  if (status !== undefined && !(PET_STATUSES as readonly string[]).includes(status)) return invalid;
  return status === undefined ? { kind: 'list', limit: Number(value) } : { kind: 'list', limit: Number(value), status };
}

const petIdSegment = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -2, max: 400 }).map(String) },
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  fc.constantFrom('9223372036854775807', '9223372036854775808', '-9223372036854775809', '99999999999999999999', '007', '-0',
    '1e3', '1.0', '0x1', ' 1', '%', '%zz', '%2F', '%00', '..', '.', '%2e%2e', 'null', 'NaN', '{"$gt":""}', '1;2', '1%3B'),
  hostileString.map(percentEncode),
  fc.string({ unit: fc.constantFrom('%', '0', '1', 'f', 'E', 'C', '/', '.', '-'), minLength: 1, maxLength: 12 }),
);

const getPet: fc.Arbitrary<FuzzRequest> = fc.record({ common: commonHeaders, segment: petIdSegment }).map(({ common, segment }) => {
  let expected: Expected | undefined;
  if (authOutcome(common.authorization) === 'ok') {
    if (/^-?\d{1,19}$/.test(segment) && BigInt(segment) >= -(2n ** 63n) && BigInt(segment) < 2n ** 63n) {
      expected = { kind: 'getPet', id: BigInt(segment) };
    } else if (/^[A-Za-z0-9_~-]+$/.test(segment) || /^-?\d+$/.test(segment)) {
      expected = { kind: 'error', status: 400, code: 'validation_failed' };
    }
  }
  return { method: 'GET', path: `/v1/pets/${segment}`, authorization: common.authorization, headers: common.headers, expected };
});

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
/** Methods Node's parser knows but the service does not implement: the only sanctioned 5xx is their 501. */
export const UNIMPLEMENTED_METHODS = ['PROPFIND', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'SEARCH', 'PURGE', 'REPORT'] as const;

const anyPath = fc.oneof(
  fc.constantFrom('/healthz', '/readyz', '/v1/openapi.json', '/v1/pets', '/v1/pets/1', '/v1', '/v1/', '/', '/v2/pets',
    '/V1/pets', '/v1/PETS', '/V1/PETS/1', '/HEALTHZ', '/v1//pets', '//v1/pets', '/v1/pets/1/2', '/v1/pets/1/', '/v1/openapi.json/',
    '/v1/OPENAPI.JSON', '/metrics', '/metrics/', '/METRICS', '/store/orders', '/v1/store/orders', '/v1/pets/..%2f..%2fhealthz', '/v1/%2e%2e/healthz', '/%', '/v1/%ff',
    '/docs', '/docs/', '/DOCS', '/docs/assets/swagger-ui.css', '/docs/assets/..%2fpackage.json', '/docs/assets/%2e%2e%2f%2e%2e%2fpackage.json'),
  fc.array(fc.oneof(fc.constantFrom('v1', 'V1', 'pets', 'Pets', '1', '%', '.', '..', 'healthz', 'openapi.json', '%2F'), fc.string({ maxLength: 8 }).map(percentEncode)), { maxLength: 4 })
    .map((segments) => `/${segments.join('/')}`),
);

const anyRoute: fc.Arbitrary<FuzzRequest> = fc
  .record({
    common: commonHeaders,
    method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...METHODS) }, fc.constantFrom(...UNIMPLEMENTED_METHODS)),
    path: anyPath,
    query: fc.option(fc.array(fc.tuple(queryKey, queryValue), { maxLength: 2 }), { nil: undefined }),
    body: fc.option(fc.oneof(knownBody.map(({ node }) => jsonText(node)), rawBody), { nil: undefined }),
    type: contentType,
  })
  .map(({ common, method, path, query, body, type: [type] }) => {
    const search = query === undefined ? '' : `?${query.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}`;
    // Bodies only where fetch allows them.
    const withBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
    const headers = withBody && type !== undefined ? { ...common.headers, 'Content-Type': type } : common.headers;
    return { method, path: `${path}${search}`, authorization: common.authorization, headers, ...(withBody ? { body } : {}) };
  });

/** Every kind of request, in proportions that keep creates and lists frequent enough to grow the store. */
export const hostileRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 6, arbitrary: createPet },
  { weight: 3, arbitrary: listPets },
  { weight: 2, arbitrary: getPet },
  { weight: 2, arbitrary: anyRoute },
);
