import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../api-error.js';
import { DOCS_ASSETS, DOCS_CSP, DOCS_HTML, type DocsAsset } from './docs-page.js';

interface LoadedAsset {
  readonly contentType: string;
  readonly body: Buffer;
  readonly etag: string;
}

// Read on first request and kept: the files belong to the installed package and never change while running.
const loaded = new Map<string, LoadedAsset>();

async function load(name: string, asset: DocsAsset): Promise<LoadedAsset> {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const body = asset.file === undefined ? Buffer.from(asset.text ?? '') : await readFile(asset.file);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const result = { contentType: asset.contentType, body, etag };
  loaded.set(name, result);
  return result;
}

/** The page's CSP instead of the JSON API's, and how long to cache. */
function setDocsHeaders(ctx: Context, cacheControl: string): void {
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('Cache-Control', cacheControl);
}

/** GET /docs, the human-readable API reference, and its allow-listed assets; no key needed. */
export function addDocsRoutes(router: Router): void {
  router.get('/docs', (ctx) => {
    setDocsHeaders(ctx, 'no-cache');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_HTML;
  });
  router.get('/docs/assets/:asset', async (ctx) => {
    const name = ctx.params.asset ?? '';
    const asset = DOCS_ASSETS.get(name);
    if (asset === undefined) throw new ApiError(404, 'not_found', `No docs asset named ${JSON.stringify(name)}.`);
    const { contentType, body, etag } = await load(name, asset);
    // An hour fresh, then revalidated by ETag: an upgraded swagger-ui-dist reaches browsers within the hour.
    setDocsHeaders(ctx, 'public, max-age=3600');
    ctx.set('ETag', etag);
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = contentType;
    ctx.body = body;
  });
}
