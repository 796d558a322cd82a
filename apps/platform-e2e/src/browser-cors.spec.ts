import type { BrowserContext, Page } from 'playwright-core';
import { launchBrowser, type Browser } from '../support/browser';
import { call, hostOf, setupValue, tokenFor } from '../support/client';

/** What the page reports back from its calls. */
interface PageOutcome {
  uploadUrl?: string;
  recordFileUrl?: string | null;
  uploadError?: string;
  requestId?: string | null;
  rateLimit?: string | null;
  eventTypes?: string[];
  feedError?: string;
}

/**
 * A client application in a real browser (docs/gateway.md, "CORS"): its page, on another
 * loopback origin registered on the application `alpha-web`, uploads a file with
 * tus-js-client's browser build and reads the change feed as Server-Sent Events through
 * the gateway; the same page on an origin nobody registered is refused by the browser.
 */
describe('a browser client on another origin', () => {
  let browser: Browser;
  let context: BrowserContext;
  let token: string;
  let vaultId: string;
  let recordBase: string;
  const gateway = () => `https://${hostOf('records')}:${setupValue('E2E_GATEWAY_PORT')}`;
  const registered = () => `http://127.0.0.1:${setupValue('E2E_PAGE_PORT')}`;
  const unregistered = () => `http://localhost:${setupValue('E2E_PAGE_PORT')}`;

  beforeAll(async () => {
    token = await tokenFor('alpha', 'alpha-web', 'alpha-web-secret', 'web@alpha.example', 'web-password-1');
    const vault = await call('records', 'POST', '/vault', { token, body: { name: 'Browser e2e' } });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token,
      body: { name: 'From the browser', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    expect(record.status).toBe(200);
    recordBase = `/api/v1/vault/vault-id/${vaultId}/records/record-id/${record.body.id}`;
    browser = await launchBrowser();
    context = browser.context;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  /** Opens the client page at `origin` and runs the upload then the feed in it. */
  async function runClient(origin: string): Promise<PageOutcome> {
    const page: Page = await context.newPage();
    try {
      await page.goto(`${origin}/`);
      return await page.evaluate(clientScript, {
        endpoint: `${gateway()}${recordBase}/uploads`,
        feed: `${gateway()}/api/v1/vault/vault-id/${vaultId}/events`,
        token,
      });
    } finally {
      await page.close();
    }
  }

  it('uploads with tus-js-client and reads the change feed from a registered origin', async () => {
    const outcome = await runClient(registered());
    expect(outcome.uploadError).toBeUndefined();
    expect(outcome.uploadUrl).toContain(`${recordBase}/uploads/`);
    expect(outcome.recordFileUrl).toBe(`${recordBase.replace('/api/v1', '')}/record-files/browser.txt`);
    // exposed response headers the page could read
    expect(outcome.requestId).toMatch(/^[A-Za-z0-9._:-]+$/);
    expect(outcome.rateLimit).toMatch(/^"caller";r=\d+;t=\d+$/);
    expect(outcome.feedError).toBeUndefined();
    expect(outcome.eventTypes).toEqual(expect.arrayContaining([expect.stringMatching(/file/)]));
    const file = await call('records', 'GET', `${recordBase.replace('/api/v1', '')}/record-files/browser.txt`, { token });
    expect(file.status).toBe(200);
    expect(file.text).toBe('hello from a browser page');
  });

  it('reads the RFC 6750 challenge of a 401 relayed through the gateway', async () => {
    const path = '/api/v1/accounts/username/web%40alpha.example';
    const missing = await call('user', 'GET', path);
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="vault"');
    const page = await context.newPage();
    try {
      await page.goto(`${registered()}/`);
      const url = `https://${hostOf('user')}:${setupValue('E2E_GATEWAY_PORT')}${path}`;
      const seen = await page.evaluate(async (u) => {
        const res = await fetch(u, { headers: { Authorization: 'Bearer not-a-jwt' } });
        return { status: res.status, challenge: res.headers.get('WWW-Authenticate') };
      }, url);
      expect(seen).toEqual({
        status: 401,
        challenge: 'Bearer realm="vault", error="invalid_token", error_description="A valid access token is required."',
      });
    } finally {
      await page.close();
    }
  });

  it('is refused by the browser from an origin no application registered', async () => {
    // The gateway is reachable from that page (an opaque no-cors answer): what fails is CORS.
    const page = await context.newPage();
    try {
      await page.goto(`${unregistered()}/`);
      const reached = await page.evaluate(
        (u) => fetch(u, { mode: 'no-cors' }).then((r) => r.type),
        `${gateway()}/api/v1/anything`,
      );
      expect(reached).toBe('opaque');
    } finally {
      await page.close();
    }
    const outcome = await runClient(unregistered());
    expect(outcome.uploadError).toMatch(/failed|error/i);
    expect(outcome.uploadUrl).toBeUndefined();
    expect(outcome.feedError).toMatch(/fetch/i);
  });
});

/**
 * Runs in the page: a tus upload (the browser build of tus-js-client, on `window.tus`), then
 * the change feed read as Server-Sent Events with fetch (an EventSource cannot send
 * Authorization), until an event about a file arrives or ten seconds pass.
 */
async function clientScript(args: { endpoint: string; feed: string; token: string }): Promise<PageOutcome> {
  type Tus = typeof import('tus-js-client');
  const tus = (globalThis as unknown as { tus: Tus }).tus;
  const out: PageOutcome = {};
  const auth = { Authorization: `Bearer ${args.token}` };
  await new Promise<void>((resolve) => {
    const upload = new tus.Upload(new Blob(['hello from a browser page'], { type: 'text/plain' }), {
      endpoint: args.endpoint,
      headers: { ...auth, 'X-Request-Id': 'browser-upload-1' },
      retryDelays: [],
      storeFingerprintForResuming: false,
      metadata: { fileName: 'browser.txt', correlationId: '260101120000', fileType: 'document' },
      onSuccess: (payload) => {
        out.uploadUrl = upload.url ?? undefined;
        out.recordFileUrl = payload.lastResponse.getHeader('Record-File-Url') ?? null;
        resolve();
      },
      onError: (err) => {
        out.uploadError = String(err);
        resolve();
      },
    });
    upload.start();
  });
  try {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 10_000);
    const res = await fetch(args.feed, {
      headers: { ...auth, Accept: 'text/event-stream', 'X-Request-Id': 'browser-feed-1' },
      signal: controller.signal,
    });
    out.requestId = res.headers.get('X-Request-Id');
    out.rateLimit = res.headers.get('RateLimit');
    out.eventTypes = [];
    const reader = (res.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    try {
      while (!out.eventTypes.some((t) => /file/.test(t))) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        const blocks = buffered.split('\n\n');
        buffered = blocks.pop() ?? '';
        for (const block of blocks) {
          const type = /^event: (.*)$/m.exec(block)?.[1];
          if (type) out.eventTypes.push(type);
        }
      }
    } catch {
      // aborted after ten seconds: the types seen so far are the answer
    }
    clearTimeout(timer);
    controller.abort();
  } catch (err) {
    out.feedError = String(err);
  }
  return out;
}
