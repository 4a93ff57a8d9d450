import { DOCS_ASSETS } from './docs-page.js';
import { BASE_HEADERS, DOCS_HEADERS, header, HEADERS } from './openapi-headers.js';
import { INFO, OPERATIONS_DOCUMENT_PATH, servingServer, type OpenApiOptions, type OpenApiServers } from './openapi-info.js';
import { ERRORS, errorResponse, jsonContent } from './openapi-responses.js';
import { componentSchemas, ref, type Json } from './openapi-schemas.js';

/*
 * The operations document, served at /openapi-operations.json: the endpoints at the origin, outside the
 * versioned interface (probes, the reference page, metrics, this document). A separate document, because
 * generated clients and Postman ignore per-path servers: in the interface document they would call /v1/healthz.
 */

const text = (mediaType: string, example: string) => ({ [mediaType]: { schema: { type: 'string' }, example } });
const withHeaders = (ids: Record<string, string>) => ({
  ...BASE_HEADERS,
  ...Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, header(id)])),
});

function get(operationId: string, summary: string, description: string, responses: Json, extra: Json = {}): Json {
  return { get: { operationId, summary, description, tags: ['operations'], ...extra, responses: { ...responses, '500': ref('responses', 'InternalError') } } };
}

const probe = (operationId: string, summary: string, description: string, status: string, extra: Json = {}) =>
  get(operationId, summary, description, {
    '200': { description: 'Healthy.', headers: BASE_HEADERS, content: jsonContent('Health', { status }) },
    ...extra,
  });

const docsPage = get('getDocsPage', 'API reference page', 'swagger-ui rendering /v1/openapi.json; self-contained under a strict Content-Security-Policy.', {
  '200': {
    description: 'The page.',
    headers: withHeaders({ 'Content-Security-Policy': 'DocsContentSecurityPolicy', 'Referrer-Policy': 'ReferrerPolicy' }),
    content: text('text/html', '<!DOCTYPE html>'),
  },
});

const assetHeaders = withHeaders({ 'Content-Security-Policy': 'DocsContentSecurityPolicy', ETag: 'ETag' });
const docsAsset = get(
  'getDocsAsset',
  'A script, style sheet or icon of the reference page',
  'Only the listed assets exist; fresh for an hour, then revalidated with the ETag.',
  {
    '200': {
      description: 'The asset.',
      headers: assetHeaders,
      content: { ...text('text/javascript', "'use strict';"), ...text('text/css', '.swagger-ui{}'), 'image/png': {} },
    },
    '304': { description: 'Not modified (If-None-Match matched).', headers: assetHeaders },
    '404': ref('responses', 'NotFound'),
  },
  {
    parameters: [
      { name: 'asset', in: 'path', required: true, description: 'The asset name.', schema: { type: 'string', enum: [...DOCS_ASSETS.keys()] }, example: 'swagger-ui.css' },
    ],
  },
);

const metrics = get(
  'getMetrics',
  'Prometheus metrics',
  'Requests by route and status, latency, stored animals, process. No key: the figures reveal no animal and no key. ' +
    'Served here only when `METRICS_PORT` is unset; keep it behind the network boundary.',
  { '200': { description: 'Prometheus text exposition format 0.0.4.', headers: BASE_HEADERS, content: text('text/plain', 'pets_stored 3\n') } },
);

const thisDocument = get('getOperationsDocument', 'This document', 'The OpenAPI 3.1 description of the operational endpoints.', {
  '200': { description: 'This document.', headers: BASE_HEADERS, content: { 'application/json': { schema: { type: 'object' }, example: { openapi: '3.1.0' } } } },
});

/** The served description of the operational endpoints; `metrics` says whether /metrics is on this port. */
export function buildOperationsDocument(servers: OpenApiServers, options: OpenApiOptions): Json {
  const schemas = componentSchemas();
  return {
    openapi: '3.1.0',
    info: { title: 'Animal Store Service: operations', description: 'Health probes, the API reference page and metrics, at the origin; no key needed. The interface is described at /v1/openapi.json.', ...INFO },
    servers: [
      servingServer('/', servers),
      { url: new URL(servers.production).origin, description: 'Production' },
      { url: new URL(servers.staging).origin, description: 'Staging' },
    ],
    tags: [{ name: 'operations', description: 'Probes, documentation and metrics.' }],
    security: [],
    paths: {
      '/healthz': probe('getLiveness', 'Liveness', 'The process serves requests.', 'ok'),
      '/readyz': probe('getReadiness', 'Readiness', 'Storage answers and the service is not shutting down.', 'ready', {
        '503': { description: 'Not ready (storage unreachable, or shutting down).', headers: BASE_HEADERS, content: jsonContent('Health', { status: 'unavailable' }) },
      }),
      '/docs': docsPage,
      '/docs/assets/{asset}': docsAsset,
      ...(options.metrics ? { '/metrics': metrics } : {}),
      [OPERATIONS_DOCUMENT_PATH]: thisDocument,
    },
    components: {
      schemas: { Error: schemas.Error, Health: schemas.Health },
      responses: { NotFound: errorResponse({ ...ERRORS.NotFound, code: 'not_found', message: 'No docs asset named "x".', anyPath: true }), InternalError: errorResponse({ ...ERRORS.InternalError, anyPath: true }) },
      headers: { ...Object.fromEntries(Object.entries(HEADERS).filter(([id]) => BASE_HEADER_IDS.has(id))), ...DOCS_HEADERS },
    },
  };
}

const BASE_HEADER_IDS = new Set(Object.values(BASE_HEADERS).map((value) => (value as { $ref: string }).$ref.split('/').pop()));
