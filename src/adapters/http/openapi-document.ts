import { BASE_HEADERS, HEADERS } from './openapi-headers.js';
import { errorResponses } from './openapi-responses.js';
import { petPaths } from './openapi-pet-paths.js';
import { componentSchemas, type Json } from './openapi-schemas.js';
import { INFO, OPERATIONS_DOCUMENT_PATH, type OpenApiServers } from './openapi-info.js';

export type { OpenApiOptions, OpenApiServers } from './openapi-info.js';

/*
 * The interface document, served at /v1/openapi.json: the three operations (openapi-pet-paths.ts) and
 * the document itself. The operational endpoints (probes, docs, metrics) live outside /v1 and are
 * described by their own document (openapi-operations-document.ts).
 */

const DESCRIPTION =
  'A catalogue of animals for sale. All requests and responses are JSON; int64 values are exact JSON ' +
  'integers (parse them with a lossless parser). An integer may be written `1`, `1.0` or `1e0`, as JSON Schema ' +
  'counts integers; its exact value must be an integer in range. Every error is an `Error` body whose `status` ' +
  'equals the HTTP status. CORS is off unless the deployment lists allowed origins: then preflights from those ' +
  'origins are answered without a key, and responses to them carry the CORS headers. Health probes, the reference ' +
  'page (/docs) and metrics are described in ' +
  `${OPERATIONS_DOCUMENT_PATH} at the origin.\n\n` +
  'Validators that read JSON numbers as doubles judge two cases differently from the service (exact): ' +
  'integers within 2048 of the int64 bounds (such a validator takes 9223372036854775808 for the maximum; ' +
  'the service answers 400), and numbers whose fraction is below double precision (1.00000000000000001 is ' +
  'not an integer for the service). A `cursor` that matches its pattern is still 400 unless this service ' +
  'issued it for the same `status`.';

/** The served description of the interface: OpenAPI 3.1, version 1.0.0. */
export function buildOpenApiDocument(servers: OpenApiServers): Json {
  const { Health: _health, ...schemas } = componentSchemas();
  return {
    openapi: '3.1.0',
    info: { title: 'Animal Store Service', description: DESCRIPTION, ...INFO },
    servers: [
      // Relative: it resolves against wherever the document was fetched, so tools call the service that served it.
      { url: '/v1', description: 'The service serving this document' },
      { url: servers.production, description: 'Production' },
      { url: servers.staging, description: 'Staging' },
    ],
    tags: [
      { name: 'animals', description: 'The animals of the store.' },
      { name: 'documentation', description: 'This document; no key needed.' },
    ],
    security: [{ bearerAuth: [] }],
    paths: { ...petPaths(), '/openapi.json': documentPath() },
    components: {
      schemas,
      responses: errorResponses(),
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
      },
    },
  };
}

function documentPath(): Json {
  return {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'The OpenAPI 3.1 description of the interface; public and readable from any origin.',
      tags: ['documentation'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 description of the interface.',
          headers: { ...BASE_HEADERS },
          content: { 'application/json': { schema: { type: 'object' }, example: { openapi: '3.1.0' } } },
        },
        '500': { $ref: '#/components/responses/InternalError' },
      },
    },
  };
}
