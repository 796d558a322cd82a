import { hostOf, setupValue } from '../support/client';
import { launchBrowser, type Browser } from '../support/browser';

/**
 * Swagger UI at the gateway (docs/openapi.md): the page served at /api/v1/docs loads the
 * merged document, and "Try it out" on an operation calls the gateway and gets its answer.
 */
describe('Swagger UI through the gateway', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('executes GET /.well-known/jwks.json with "Try it out" and shows 200', async () => {
    const page = await browser.context.newPage();
    try {
      const calls: { url: string; status: number }[] = [];
      page.on('response', (res) => calls.push({ url: res.url(), status: res.status() }));
      await page.goto(`https://${hostOf('developer')}:${setupValue('E2E_GATEWAY_PORT')}/api/v1/docs`);
      const operation = page.locator('#operations-keys-Jwks_jwks');
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.try-out__btn').click();
      await operation.locator('button.execute').click();
      const status = operation.locator('.live-responses-table tbody .response-col_status').first();
      await status.waitFor({ timeout: 20_000 });
      expect((await status.innerText()).trim()).toBe('200');
      // The call went to the gateway at the path the document names, once, without the prefix twice.
      const jwks = calls.filter((c) => c.url.endsWith('/.well-known/jwks.json'));
      expect(jwks).toEqual([
        { url: `https://${hostOf('developer')}:${setupValue('E2E_GATEWAY_PORT')}/api/v1/.well-known/jwks.json`, status: 200 },
      ]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
