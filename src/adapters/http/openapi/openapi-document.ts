import { BASE_HEADERS, HEADERS } from './openapi-headers.js';
import { errorResponses } from './openapi-responses.js';
import { petPaths } from './openapi-pet-paths.js';
import { componentSchemas, type Json } from './openapi-schemas.js';
import { INFO, servingServer, type OpenApiServers } from './openapi-info.js';
import { introduction } from './openapi-introduction.js';

export type { OpenApiOptions, OpenApiServers } from './openapi-info.js';

/*
 * The interface document, served at /v1/openapi.json: the three operations (openapi-pet-paths.ts) and
 * the document itself. The operational endpoints (probes, docs, metrics) live outside /v1 and are
 * described by their own document (openapi-operations-document.ts).
 */

/**
 * The served description of the interface: OpenAPI 3.1, version 1.0.0. `localBase`: the address a local instance
 * was reached at, for the introduction's examples.
 */
export function buildOpenApiDocument(servers: OpenApiServers, localBase?: string): Json {
  const { Health: _health, ...schemas } = componentSchemas();
  return {
    openapi: '3.1.0',
    info: { title: 'Animal Store Service', description: introduction(servers, localBase), ...INFO },
    servers: [
      // Tools call the service that served the document; the configured addresses follow, whichever that is.
      servingServer('/v1', servers),
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
