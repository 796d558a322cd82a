import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bob, call, cy, tokenFor } from '../support/client';

const BOUNDARY = 'e2e-content-search-boundary';
const PDF = readFileSync(join(__dirname, '../../records-service/test/search/fixtures/policy.pdf'));

/**
 * Content search through the gateway, from the build output: the upload's text is read by an
 * extractor process forked from the built main.js, then found by GET /search (docs/search.md).
 */
describe('content search through the gateway', () => {
  jest.setTimeout(120_000);
  let owner: string;
  let sameTenant: string;
  let otherTenant: string;
  let files: string;

  beforeAll(async () => {
    [owner, sameTenant, otherTenant] = await Promise.all([
      tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'sia@alpha.example', 'sia-password-1'),
      bob(),
      cy(),
    ]);
    const vault = await call('records', 'POST', '/vault', { token: owner, body: { name: 'Search e2e' } });
    const record = await call('records', 'POST', `/vault/vault-id/${vault.body.id}/records`, {
      token: owner,
      body: { name: 'Household policy', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    files = `/vault/vault-id/${vault.body.id}/records/record-id/${record.body.id}/record-files`;
    const query = new URLSearchParams({ fileName: 'policy.pdf', correlationId: '260101120000', fileType: 'document' });
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="policy.pdf"\r\n` +
          `Content-Type: application/pdf\r\n\r\n`,
      ),
      PDF,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const uploaded = await call('records', 'POST', `${files}?${query}`, {
      token: owner,
      raw: body,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(uploaded.status).toBe(201);
  });

  it('reads the text of an upload and finds it for the owner only', async () => {
    let text = await call('records', 'GET', `${files}/policy.pdf/text`, { token: owner });
    for (let i = 0; i < 600 && text.body.status === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = await call('records', 'GET', `${files}/policy.pdf/text`, { token: owner });
    }
    expect(text.status).toBe(200);
    expect(text.body).toMatchObject({ status: 'extracted', detectedType: 'application/pdf' });
    expect(text.body.pages[0].text).toContain('Hausratversicherung');

    const found = await call('records', 'GET', '/search?q=Buero%20flood', { token: owner });
    expect(found.status).toBe(200);
    expect(found.body.data.map((h: { fileName: string }) => h.fileName)).toEqual(['policy.pdf']);
    expect(found.body.data[0].snippet).toContain('<mark>');
    for (const token of [sameTenant, otherTenant]) {
      const none = await call('records', 'GET', '/search?q=Buero%20flood', { token });
      expect({ status: none.status, data: none.body.data }).toEqual({ status: 200, data: [] });
    }
    expect((await call('records', 'GET', `${files}/policy.pdf/text`, { token: sameTenant })).status).toBe(404);
  });

  it('refuses an empty query with a problem, and a call without a token', async () => {
    const empty = await call('records', 'GET', '/search?q=', { token: owner });
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('validation_failed');
    expect((await call('records', 'GET', '/search?q=flood')).status).toBe(401);
  });
});
