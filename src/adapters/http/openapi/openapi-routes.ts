import type Router from '@koa/router';
import type { Context } from 'koa';
import { stringify } from 'lossless-json';
import { buildOpenApiDocument } from './openapi-document.js';
import { OPERATIONS_DOCUMENT_PATH, type OpenApiOptions, type OpenApiServers } from './openapi-info.js';
import { buildOperationsDocument } from './openapi-operations-document.js';
import { requestOrigin } from './request-origin.js';
import { recentAnswers } from '../memoized.js';
import { sendJson } from '../send-json.js';

// A local instance is reached at a handful of addresses (localhost, 127.0.0.1, a container's mapped port).
const LOCAL_ADDRESSES_KEPT = 8;

/**
 * GET /v1/openapi.json (the interface) and GET /openapi-operations.json (probes, docs, metrics): public,
 * built once at start-up. lossless-json writes the int64 bounds with every digit. A local instance
 * (APP_ENV=local) builds the interface document for the address it was reached at, so that the first request
 * of its introduction (/docs) reaches that instance.
 */
export function addOpenApiRoutes(router: Router, servers: OpenApiServers, options: OpenApiOptions): void {
  const operationsDocument = stringify(buildOperationsDocument(servers, options), null, 2)!;
  const documents: Record<string, (ctx: Context) => string> = {
    '/v1/openapi.json': interfaceDocument(servers),
    [OPERATIONS_DOCUMENT_PATH]: () => operationsDocument,
  };
  for (const [path, document] of Object.entries(documents)) {
    router.get(path, (ctx) => {
      // Readable from any origin: documentation tools fetch it cross-origin, and it holds no secret.
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Cache-Control', 'public, max-age=300');
      sendJson(ctx, 200, document(ctx));
    });
  }
}

function interfaceDocument(servers: OpenApiServers): (ctx: Context) => string {
  const build = (localBase?: string) => stringify(buildOpenApiDocument(servers, localBase), null, 2)!;
  if (servers.serving !== 'local') {
    const document = build();
    return () => document;
  }
  const forOrigin = recentAnswers((origin: string) => build(`${origin}/v1`), LOCAL_ADDRESSES_KEPT);
  return (ctx) => forOrigin(requestOrigin(ctx));
}
