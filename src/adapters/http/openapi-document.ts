import { z } from 'zod';
import { GET_PET_SUCCESSOR, GET_PET_SUNSET_AT } from './deprecation.js';
import { DOCS_ASSETS } from './docs-page.js';
import {
  CursorSchema,
  ErrorSchema,
  HealthSchema,
  ListPetsQuerySchema,
  NewPetSchema,
  PetIdSchema,
  PetSchema,
  PetsSchema,
  PetStatusSchema,
} from './wire-schemas.js';

/*
 * The OpenAPI 3.1 document, generated from the wire schemas (wire-schemas.ts): nothing here restates a
 * field, a type or a bound. What is written by hand is what only the document has: prose, responses, headers.
 */

type Json = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, jsonSchemaOptions(io)) as Json;
  return rest;
};

function jsonSchemaOptions(io: 'input' | 'output') {
  return {
    io,
    target: 'draft-2020-12' as const,
    unrepresentable: 'any' as const,
    uri: (id: string) => `#/components/schemas/${id}`,
    override: (context: { zodSchema: z.core.$ZodType; jsonSchema: Json }) => {
      // bigint is how int64 travels inside the service; on the wire it is a bare JSON integer.
      if (context.zodSchema._zod.def.type === 'bigint') {
        context.jsonSchema.type = 'integer';
        context.jsonSchema.format = 'int64';
      }
    },
  };
}

function componentSchemas(): Json {
  const responses = z.registry<{ id: string }>();
  for (const [id, schema] of [['Pet', PetSchema], ['Pets', PetsSchema], ['Error', ErrorSchema], ['PetStatus', PetStatusSchema], ['Health', HealthSchema]] as const) {
    responses.add(schema, { id });
  }
  // Request bodies are read as input: unknown members are allowed there (and dropped).
  const requests = z.registry<{ id: string }>();
  requests.add(NewPetSchema, { id: 'NewPet' }).add(PetStatusSchema, { id: 'PetStatus' });
  const out = z.toJSONSchema(responses, jsonSchemaOptions('output')).schemas as Record<string, Json>;
  const input = z.toJSONSchema(requests, jsonSchemaOptions('input')).schemas as Record<string, Json>;
  const all = { ...out, NewPet: input.NewPet! };
  return Object.fromEntries(
    Object.entries(all).map(([id, { $schema: _s, $id: _i, ...schema }]) => [id, schema]),
  );
}

const ref = (kind: string, id: string) => ({ $ref: `#/components/${kind}/${id}` });
const jsonContent = (schemaId: string) => ({ 'application/json': { schema: ref('schemas', schemaId) } });

const stringHeader = (description: string, example?: string) => ({
  description,
  schema: { type: 'string', ...(example === undefined ? {} : { example }) },
});

const HEADERS: Json = {
  XRequestId: stringHeader('Echo of the client\'s X-Request-Id when safe (at most 128 of [A-Za-z0-9_.:-]), else a generated id.'),
  WWWAuthenticate: stringHeader('RFC 6750 bearer challenge.', 'Bearer realm="animal-store", error="invalid_token"'),
  Location: stringHeader('Path of the created animal.', '/v1/pets/1'),
  Link: stringHeader('RFC 8288 links: rel="next" on lists when more animals match.'),
  Allow: stringHeader('The methods the resource supports.', 'HEAD, GET, POST'),
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  Accept: stringHeader('The media types the operation accepts.', 'application/json'),
  Deprecation: stringHeader('RFC 9745 structured date of the deprecation.', '@1795219200'),
  Sunset: stringHeader('RFC 8594 removal date.', 'Thu, 05 Dec 2030 00:00:00 GMT'),
  RateLimit: stringHeader(
    'Quota left in the current window (IETF RateLimit header fields draft), when rate limits are on.',
    '"per-key";r=5999;t=60',
  ),
  RateLimitPolicy: stringHeader('The quota policy: requests (q) per window of w seconds.', '"per-key";q=6000;w=60'),
  IdempotentReplayed: stringHeader('Present (value `true`) when this is the stored response of an earlier request with the same Idempotency-Key.', 'true'),
  AccessControlAllowOrigin: stringHeader('CORS: this document is readable from any origin.', '*'),
  ETag: stringHeader('Validator for If-None-Match: an unchanged asset answers 304.'),
  GetPetLink: stringHeader('Successor of this deprecated operation (rel="successor-version").', `<${GET_PET_SUCCESSOR}>; rel="successor-version"`),
};

const withRequestId = (headers: Json = {}) => ({ 'X-Request-Id': ref('headers', 'XRequestId'), ...headers });

/** Headers of every response to an authenticated request under /v1. */
const withApiHeaders = (headers: Json = {}) =>
  withRequestId({ RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimitPolicy'), ...headers });

function errorResponse(description: string, headers: Json = {}): Json {
  return { description, headers: withApiHeaders(headers), content: jsonContent('Error') };
}

const RESPONSES: Json = {
  BadRequest: errorResponse(
    'The request breaks the contract (`validation_failed`, `malformed_json`, `invalid_cursor`, ' +
      '`invalid_idempotency_key`), or is not valid HTTP at all (`malformed_request`, any path).',
  ),
  Unauthorized: errorResponse('API key missing (`missing_api_key`) or invalid (`invalid_api_key`).', {
    'WWW-Authenticate': ref('headers', 'WWWAuthenticate'),
  }),
  NotFound: errorResponse('No such resource (`pet_not_found`, `not_found`).'),
  MethodNotAllowed: errorResponse('The path does not support this method (`method_not_allowed`).', {
    Allow: ref('headers', 'Allow'),
  }),
  PayloadTooLarge: errorResponse('The body exceeds 64 KiB (`payload_too_large`).'),
  UnsupportedMediaType: errorResponse('The body is not `application/json` (`unsupported_media_type`).', {
    Accept: ref('headers', 'Accept'),
  }),
  InternalError: errorResponse('Unexpected failure (`internal_error`); no detail is exposed.'),
  RequestTimeout: errorResponse(
    'The request head or body did not arrive in time (`request_timeout`); the connection is closed. Any path.',
  ),
  HeadersTooLarge: errorResponse(
    'The request line and headers exceed 16 KiB (`headers_too_large`); the connection is closed. Any path.',
  ),
  NotImplemented: errorResponse('An HTTP method the service does not know (`not_implemented`).'),
  TooManyRequests: errorResponse(
    'Quota spent (`rate_limited`): per API key, or failed authentications per client address. Retry after `Retry-After` seconds.',
    { 'Retry-After': ref('headers', 'RetryAfter') },
  ),
  ServiceUnavailable: errorResponse('Storage did not answer in time (`storage_unavailable`).', {
    'Retry-After': ref('headers', 'RetryAfter'),
  }),
};

/** Responses every authenticated operation can give, besides its own. */
const COMMON_RESPONSES = {
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'TooManyRequests'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
};

function queryParameters(): Json[] {
  const shape = ListPetsQuerySchema.shape;
  return [
    { name: 'limit', in: 'query', required: false, schema: toSchema(shape.limit, 'output') },
    {
      name: 'status',
      in: 'query',
      required: false,
      description: 'When present, only animals with this status are returned.',
      schema: ref('schemas', 'PetStatus'),
    },
    {
      name: 'cursor',
      in: 'query',
      required: false,
      'x-stability': 'beta',
      description:
        'Opaque position from a `rel="next"` Link of a previous page; continue with the same `limit` and `status`. ' +
        'A tampered or malformed cursor is 400 (`invalid_cursor`). Added beyond v1.0.0.',
      schema: toSchema(CursorSchema, 'input'),
    },
  ];
}

function operations(): Json {
  const sunsetDay = new Date(GET_PET_SUNSET_AT).toISOString().slice(0, 10);
  return {
    '/pets': {
      get: {
        operationId: 'listPets',
        summary: 'List animals',
        description:
          'Animals in ascending id order, at most `limit`. When more match, a `Link: <...>; rel="next"` header ' +
          'points to the next page; following it visits every matching animal exactly once.',
        tags: ['animals'],
        parameters: queryParameters(),
        responses: {
          '200': {
            description: 'A page of animals.',
            headers: withApiHeaders({ Link: ref('headers', 'Link') }),
            content: jsonContent('Pets'),
          },
          '400': ref('responses', 'BadRequest'),
          ...COMMON_RESPONSES,
        },
      },
      post: {
        operationId: 'createPet',
        summary: 'Add an animal',
        description: 'The service assigns the id. Unknown members of the body (a client-sent `id`, say) are ignored.',
        tags: ['animals'],
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            'x-stability': 'beta',
            description:
              'Makes retries safe (draft-ietf-httpapi-idempotency-key-header): 1 to 255 printable ASCII characters, ' +
              'bare or as a quoted sf-string, scoped to your API key. The first completed response is replayed for 24 h ' +
              '(IDEMPOTENCY_TTL_MS) to retries with the same body; another body is 422, a retry while the first is ' +
              'still running is 409. Failed requests are not stored. Added beyond v1.0.0.',
            schema: { type: 'string', minLength: 1, maxLength: 257 },
          },
        ],
        requestBody: { required: true, content: jsonContent('NewPet') },
        responses: {
          '201': {
            description: 'The created animal (or, with Idempotent-Replayed, the replay of an earlier creation).',
            headers: withApiHeaders({
              Location: ref('headers', 'Location'),
              'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
            }),
            content: jsonContent('Pet'),
          },
          '400': ref('responses', 'BadRequest'),
          '409': errorResponse('A request with this Idempotency-Key is still in progress (`idempotency_key_in_use`).', {
            'Retry-After': ref('headers', 'RetryAfter'),
          }),
          '422': errorResponse('This Idempotency-Key was used with a different body (`idempotency_key_reused`).'),
          '413': ref('responses', 'PayloadTooLarge'),
          '415': ref('responses', 'UnsupportedMediaType'),
          ...COMMON_RESPONSES,
        },
      },
    },
    '/pets/{petId}': {
      get: {
        operationId: 'getPet',
        summary: 'Get an animal (deprecated)',
        description:
          `Deprecated: removed on ${sunsetDay}; after that instant it answers 410. ` +
          'Use `GET /pets` with the `status` filter instead.',
        deprecated: true,
        'x-sunset': sunsetDay,
        tags: ['animals'],
        parameters: [
          {
            name: 'petId',
            in: 'path',
            required: true,
            description: 'Identifier of the animal to retrieve (int64).',
            schema: toSchema(PetIdSchema, 'output'),
          },
        ],
        responses: Object.fromEntries(
          Object.entries({
            '200': { description: 'The animal.', content: jsonContent('Pet') },
            '400': RESPONSES.BadRequest,
            '401': RESPONSES.Unauthorized,
            '404': RESPONSES.NotFound,
            '429': RESPONSES.TooManyRequests,
            '410': errorResponse(`The operation was removed on ${sunsetDay} (\`operation_removed\`); use GET /pets.`),
            '500': RESPONSES.InternalError,
            '503': RESPONSES.ServiceUnavailable,
          }).map(([status, response]) => [status, withDeprecationHeaders(response as Json)]),
        ),
      },
    },
  };
}

function withDeprecationHeaders(response: Json): Json {
  const headers = {
    ...((response.headers as Json | undefined) ?? withApiHeaders()),
    Deprecation: ref('headers', 'Deprecation'),
    Sunset: ref('headers', 'Sunset'),
    Link: ref('headers', 'GetPetLink'),
  };
  return { ...response, headers };
}

const metricsOperation = (servers: Json[]): Json => ({
  servers,
  get: {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics: requests by route and status, latency, stored animals, process',
    description:
      'No key: the figures reveal no animal and no key. Served here only when `METRICS_PORT` is unset; ' +
      'put it behind the network boundary (or give it its own port) where scrapes should not come from the internet.',
    tags: ['operations'],
    security: [],
    responses: {
      '200': {
        description: 'Prometheus text exposition format 0.0.4.',
        headers: withRequestId(),
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      '500': ref('responses', 'InternalError'),
    },
  },
});

/** The reference page (swagger-ui rendering this document) and its allow-listed assets. */
const docsOperations = (servers: Json[]): Json => ({
  '/docs': {
    servers,
    get: {
      operationId: 'getDocsPage',
      summary: 'API reference page (HTML) rendered from this document',
      description: 'Self-contained: its assets come from this service, under a strict Content-Security-Policy.',
      tags: ['operations'],
      security: [],
      responses: {
        '200': { description: 'The page.', headers: withRequestId(), content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
  },
  '/docs/assets/{asset}': {
    servers,
    get: {
      operationId: 'getDocsAsset',
      summary: 'A script, style sheet or icon of the reference page',
      tags: ['operations'],
      security: [],
      parameters: [{ name: 'asset', in: 'path', required: true, schema: { type: 'string', enum: [...DOCS_ASSETS.keys()] } }],
      responses: {
        '200': {
          description: 'The asset; fresh for an hour, then revalidated with its ETag.',
          headers: withRequestId({ ETag: ref('headers', 'ETag') }),
          content: {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
            'image/png': {},
          },
        },
        '304': { description: 'Not modified (If-None-Match matched).', headers: withRequestId({ ETag: ref('headers', 'ETag') }) },
        '404': ref('responses', 'NotFound'),
      },
    },
  },
});

/** Operational endpoints: public, outside the versioned base path, so they name their own servers. */
function publicOperations(servers: OpenApiServers, options: OpenApiOptions): Json {
  const origins = [
    { url: new URL(servers.production).origin, description: 'Production' },
    { url: new URL(servers.staging).origin, description: 'Staging' },
  ];
  const probe = (operationId: string, summary: string, extra: Json = {}) => ({
    servers: origins,
    get: {
      operationId,
      summary,
      tags: ['operations'],
      security: [],
      responses: {
        '200': { description: 'Healthy.', headers: withRequestId(), content: jsonContent('Health') },
        ...extra,
        '500': ref('responses', 'InternalError'),
      },
    },
  });
  return {
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        tags: ['operations'],
        security: [],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 description of the interface.',
            headers: withRequestId({ 'Access-Control-Allow-Origin': ref('headers', 'AccessControlAllowOrigin') }),
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/healthz': probe('getLiveness', 'Liveness: the process serves requests'),
    '/readyz': probe('getReadiness', 'Readiness: storage answers and the service is not shutting down', {
      '503': { description: 'Not ready (storage unreachable, or shutting down).', headers: withRequestId(), content: jsonContent('Health') },
    }),
    ...docsOperations(origins),
    ...(options.metrics ? { '/metrics': metricsOperation(origins) } : {}),
  };
}

export interface OpenApiServers {
  readonly production: string;
  readonly staging: string;
}

export interface OpenApiOptions {
  /** Whether GET /metrics is served on the API port (and so belongs in the document). */
  readonly metrics: boolean;
}

/** The served description of the interface: OpenAPI 3.1, version 1.0.0. */
export function buildOpenApiDocument(servers: OpenApiServers, options: OpenApiOptions): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store Service',
      version: '1.0.0',
      description:
        'A catalogue of animals for sale. All requests and responses are JSON; int64 values are exact JSON ' +
        'integers (parse them with a lossless parser). Every error is an `Error` body whose `status` equals the HTTP status. ' +
        'CORS is off unless the deployment lists allowed origins: then preflights from those origins are answered ' +
        'without a key, and responses to them carry `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: servers.production, description: 'Production' },
      { url: servers.staging, description: 'Staging' },
    ],
    tags: [
      { name: 'animals', description: 'The animals of the store.' },
      { name: 'operations', description: 'Health probes and documentation; no key needed.' },
    ],
    security: [{ bearerAuth: [] }],
    paths: { ...operations(), ...publicOperations(servers, options) },
    components: {
      schemas: componentSchemas(),
      responses: RESPONSES,
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
      },
    },
  };
}
