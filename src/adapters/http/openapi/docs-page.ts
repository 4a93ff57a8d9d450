import { createRequire } from 'node:module';
import path from 'node:path';

/*
 * The API reference page: swagger-ui-dist rendering the served document. Everything comes from our own
 * origin (no CDN), with no inline script or style, so the page runs offline under DOCS_CSP.
 */

const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

export const DOCS_ASSET_PREFIX = '/docs/assets/';

export interface DocsAsset {
  readonly contentType: string;
  /** A file inside swagger-ui-dist, or the text itself. */
  readonly file?: string;
  readonly text?: string;
}

/*
 * Replaces swagger-ui's own swagger-initializer.js, which loads petstore.swagger.io. validatorUrl: null keeps it
 * from calling validator.swagger.io. "Try it out" calls the document's first server, the relative /v1: the
 * service serving the page (connect-src 'self' keeps it from calling any other).
 */
const DOCS_INIT_JS = `'use strict';
window.ui = SwaggerUIBundle({
  url: document.getElementById('swagger-ui').getAttribute('data-spec-url'),
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  presets: [SwaggerUIBundle.presets.apis],
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 1,
  validatorUrl: null,
  queryConfigEnabled: false,
  supportedSubmitMethods: ['get', 'post']
});
`;

const swaggerFile = (file: string, contentType: string): DocsAsset => ({ contentType, file: path.join(SWAGGER_UI_DIR, file) });

/** The allow-list: the only names GET /docs/assets/{asset} serves. Nothing is looked up on disk by request input. */
export const DOCS_ASSETS: ReadonlyMap<string, DocsAsset> = new Map([
  ['swagger-ui.css', swaggerFile('swagger-ui.css', 'text/css; charset=utf-8')],
  // text/javascript: RFC 9239 made it the one JavaScript media type (application/javascript is obsolete).
  ['swagger-ui-bundle.js', swaggerFile('swagger-ui-bundle.js', 'text/javascript; charset=utf-8')],
  ['favicon-32x32.png', swaggerFile('favicon-32x32.png', 'image/png')],
  ['favicon-16x16.png', swaggerFile('favicon-16x16.png', 'image/png')],
  ['docs-init.js', { contentType: 'text/javascript; charset=utf-8', text: DOCS_INIT_JS }],
]);

/**
 * No inline script or style, nothing from another origin. React sets inline styles through the CSSOM, which
 * style-src does not govern; swagger-ui.css draws its icons as data: SVGs, hence img-src data:.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const a = DOCS_ASSET_PREFIX;

/** The page; swagger-ui fetches the document from the same origin, so connect-src 'self' suffices. */
export const DOCS_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Animal Store Service API reference</title>
<link rel="stylesheet" href="${a}swagger-ui.css">
<link rel="icon" type="image/png" href="${a}favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${a}favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui" data-spec-url="/v1/openapi.json"></div>
<script src="${a}swagger-ui-bundle.js"></script>
<script src="${a}docs-init.js"></script>
</body>
</html>
`;
