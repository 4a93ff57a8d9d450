import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http-harness.js';
import { TEST_API_KEY } from '../support/test-config.js';

/*
 * /docs in headless Debian Chromium (`apt-get install chromium`; .ci/run installs it when missing). Every
 * request leaving this machine is recorded and blocked, so the page must render offline.
 */

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = fileURLToPath(new URL('../../test-output/', import.meta.url));
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

// Runs in the page before its own scripts; CDP injects it, so the page's CSP does not block it.
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.__cspViolations.push(e.violatedDirective + ' blocked ' + e.blockedURI + ' at ' + e.sourceFile + ':' + e.lineNumber));
`;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (see .ci/run)`);
  server = await startTestServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  await mkdir(OUTPUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface Observed {
  readonly consoleErrors: string[];
  readonly pageErrors: string[];
  readonly failedRequests: string[];
  readonly outsideRequests: string[];
}

async function openObserved(context: BrowserContext): Promise<{ page: Page; observed: Observed }> {
  const observed: Observed = { consoleErrors: [], pageErrors: [], failedRequests: [], outsideRequests: [] };
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
    observed.outsideRequests.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') observed.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => observed.pageErrors.push(String(error)));
  page.on('requestfailed', (request) => observed.failedRequests.push(`${request.url()} ${request.failure()?.errorText}`));
  await page.addInitScript(RECORD_CSP_VIOLATIONS);
  return { page, observed };
}

describe('the /docs page in headless Chromium', () => {
  it('shows the three operations, getPet deprecated, with no console error, CSP violation or outside request', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const { page, observed } = await openObserved(context);

    const response = await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);

    // swagger-ui gives each operation the id operations-<tag>-<operationId>.
    const operation = (id: string) => page.locator(`#operations-animals-${id}`);
    await operation('listPets').waitFor({ state: 'visible', timeout: 15_000 });
    for (const id of ['listPets', 'createPet', 'getPet']) {
      await expect.poll(() => operation(id).isVisible(), { message: id }).toBe(true);
      expect(await operation(id).locator('.opblock-summary-operation-id').innerText()).toBe(id);
    }
    expect(await page.locator('.info .title').innerText()).toContain('Animal Store Service');
    expect(await operation('listPets').getAttribute('class')).toContain('opblock-get');
    expect(await operation('createPet').getAttribute('class')).toContain('opblock-post');
    expect(await operation('getPet').getAttribute('class')).toContain('opblock-deprecated');
    expect(await operation('getPet').locator('.opblock-summary [data-path]').getAttribute('data-path')).toBe('/pets/{petId}');
    expect(await page.locator('.opblock-deprecated').count()).toBe(1);
    await page.screenshot({ path: `${OUTPUT}docs-page.png`, fullPage: true });

    // Expanded operations render parameters, responses and schemas: they must keep to the CSP as well.
    await operation('getPet').locator('.opblock-summary-control').click();
    await operation('getPet').locator('.responses-table').first().waitFor({ state: 'visible' });
    expect(await operation('getPet').locator('.responses-table .response-col_status').allInnerTexts()).toEqual(
      expect.arrayContaining(['200', '404', '410']),
    );
    await page.waitForLoadState('networkidle');
    await operation('getPet').screenshot({ path: `${OUTPUT}docs-page-get-pet.png` });

    expect(await page.evaluate('window.__cspViolations')).toEqual([]);
    expect(observed).toEqual({ consoleErrors: [], pageErrors: [], failedRequests: [], outsideRequests: [] });
    await context.close();
  }, 60_000);

  it('"Try it out" calls the service serving the page (the relative /v1 server) and shows its answer', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const { page, observed } = await openObserved(context);
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    const listPets = page.locator('#operations-animals-listPets');
    await listPets.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('.servers select option').first().innerText()).toContain('/v1');
    await page.evaluate(`window.ui.preauthorizeApiKey('bearerAuth', '${TEST_API_KEY}')`);

    await listPets.locator('.opblock-summary-control').click();
    await listPets.locator('button.try-out__btn').click();
    const sent = page.waitForRequest((request) => request.url().startsWith(`${server.url}/v1/pets`));
    await listPets.locator('button.execute').click();
    expect(new URL((await sent).url()).origin).toBe(server.url);
    const status = listPets.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor({ state: 'visible', timeout: 15_000 });
    expect((await status.innerText()).trim()).toBe('200');

    expect(await page.evaluate('window.__cspViolations')).toEqual([]);
    expect(observed).toEqual({ consoleErrors: [], pageErrors: [], failedRequests: [], outsideRequests: [] });
    await context.close();
  }, 60_000);
});
