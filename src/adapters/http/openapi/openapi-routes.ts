import type Router from '@koa/router';
import { stringify } from 'lossless-json';
import { buildOpenApiDocument } from './openapi-document.js';
import { OPERATIONS_DOCUMENT_PATH, type OpenApiOptions, type OpenApiServers } from './openapi-info.js';
import { buildOperationsDocument } from './openapi-operations-document.js';
import { sendJson } from '../send-json.js';

/**
 * GET /v1/openapi.json (the interface) and GET /openapi-operations.json (probes, docs, metrics): public,
 * built once at start-up. lossless-json writes the int64 bounds with every digit.
 */
export function addOpenApiRoutes(router: Router, servers: OpenApiServers, options: OpenApiOptions): void {
  const documents = {
    '/v1/openapi.json': stringify(buildOpenApiDocument(servers), null, 2)!,
    [OPERATIONS_DOCUMENT_PATH]: stringify(buildOperationsDocument(servers, options), null, 2)!,
  };
  for (const [path, document] of Object.entries(documents)) {
    router.get(path, (ctx) => {
      // Readable from any origin: documentation tools fetch it cross-origin, and it holds no secret.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=300');
      sendJson(ctx, 200, document);
    });
  }
}
