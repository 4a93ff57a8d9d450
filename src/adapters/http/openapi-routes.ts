import Router from '@koa/router';
import { buildOpenApiDocument, type OpenApiOptions, type OpenApiServers } from './openapi-document.js';
import { sendJson } from './send-json.js';

/** GET /v1/openapi.json: the contract, public, built once at start-up. */
export function openApiRoutes(servers: OpenApiServers, options: OpenApiOptions): Router {
  const document = JSON.stringify(buildOpenApiDocument(servers, options), null, 2);
  const router = new Router({ sensitive: true, strict: true });
  router.get('/v1/openapi.json', (ctx) => {
    // Readable from any origin: documentation tools fetch it cross-origin, and it holds no secret.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.set('Cache-Control', 'public, max-age=300');
    sendJson(ctx, 200, document);
  });
  return router;
}
