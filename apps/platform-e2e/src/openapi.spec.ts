import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, domain, setupValue, tokenFor } from '../support/client';
import { answerProblems } from '../support/openapi-validator';

const here = () => `${domain()}:${setupValue('E2E_GATEWAY_PORT')}`;
const committed = () => JSON.parse(readFileSync(join(__dirname, '../../../libs/contracts/openapi/vault-api.json'), 'utf8'));

/**
 * The API description through the gateway (docs/openapi.md): the merged document and
 * Swagger UI on every module host, its servers naming this gateway; the check every other
 * suite's answers pass through (support/openapi-validator.ts) refuses what the document
 * does not say; GET /accounts/me.
 */
describe('the OpenAPI description through the gateway', () => {
  it.each(['developer', 'user', 'records'] as const)('serves the merged document on the %s host', async (module) => {
    const res = await call(module, 'GET', '/api/v1/openapi/vault-api.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Vault API');
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/api/v1'))).toBe(false);
    // The committed document, its servers defaulting to the gateway the caller reached.
    expect(doc.paths['/vault'].servers[0].variables.domain.default).toBe(here());
    expect(doc.paths['/.well-known/jwks.json'].servers[0].url).toBe('https://developer-api.{domain}/api/v1');
    expect(Object.keys(doc.paths)).toEqual(Object.keys(committed().paths));
    expect(doc.components).toEqual(committed().components);
  });

  it('relays each module’s own document, its server naming the gateway reached', async () => {
    const res = await call('records', 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.info.title).toMatch(/Records/);
    expect(res.body.servers).toEqual([expect.objectContaining({ url: 'https://records-api.{domain}/api/v1' })]);
    expect(res.body.servers[0].variables.domain.default).toBe(here());
    expect(res.body.paths['/vault'].post.security).toEqual([{ bearer: [] }]);
  });

  it('serves Swagger UI at /api/v1/docs', async () => {
    const res = await call('records', 'GET', '/api/v1/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui');
  });

  it('refuses an answer the document does not describe', () => {
    const base = { module: 'records', requestHeaders: {}, headers: { 'content-type': 'application/json' } };
    const path = '/api/v1/vault/vault-id/00000000-0000-4000-8000-000000000000';
    // A status the operation does not list.
    expect(answerProblems({ ...base, method: 'GET', path, status: 418, text: '{}', body: {} })).toEqual([
      expect.stringContaining('status not documented'),
    ]);
    // A problem body without its required members.
    const body = { title: 'Not Found' };
    const problem = { ...base, headers: { 'content-type': 'application/problem+json' } };
    expect(answerProblems({ ...problem, method: 'GET', path, status: 404, text: JSON.stringify(body), body })).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'status'")]),
    );
    // A 201 without the Location every 201 carries.
    const created = { ...base, method: 'POST', path: '/api/v1/vault', status: 201, text: '{"id":"v"}', body: { id: 'v' } };
    expect(answerProblems(created)).toEqual([expect.stringContaining('required header Location missing')]);
    expect(answerProblems({ ...created, headers: { ...created.headers, location: '/api/v1/vault/vault-id/v' } })).toEqual([]);
  });

  describe('GET /accounts/me', () => {
    it('answers the account of the token’s identity, as GET /accounts/open-id/{openId} does', async () => {
      const token = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'oas@alpha.example', 'oas-password-1');
      const before = await call('user', 'GET', '/accounts/me', { token });
      expect(before.status).toBe(404);
      expect(before.headers['content-type']).toMatch(/^application\/problem\+json/);
      const created = await call('user', 'POST', '/accounts', { token, body: { firstName: 'Oas', lastName: 'Me' } });
      expect(created.status).toBe(200);
      const me = await call('user', 'GET', '/accounts/me', { token });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(created.body.id);
      const byOpenId = await call('user', 'GET', `/accounts/open-id/${encodeURIComponent(me.body.openId)}`, { token });
      expect(me.body).toEqual(byOpenId.body);
      expect(me.headers['etag']).toBe(byOpenId.headers['etag']);
    });

    it('answers 401 without a token', async () => {
      const res = await call('user', 'GET', '/accounts/me');
      expect(res.status).toBe(401);
    });
  });

  // After GET /accounts/me created the account.
  it('answers 201 with a Location resolved against the request URL (docs/openapi.md, URLs in answers)', async () => {
    const token = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'oas@alpha.example', 'oas-password-1');
    const created = await call('records', 'POST', '/vault', { token, body: { name: 'Located' } });
    expect(created.status).toBe(201);
    const location = String(created.headers['location']);
    expect(location).toBe(`/api/v1/vault/vault-id/${created.body.id}`);
    const requestUrl = `https://records-api.${here()}/api/v1/vault`;
    const resolved = new URL(location, requestUrl);
    expect(resolved.href).toBe(`https://records-api.${here()}/api/v1/vault/vault-id/${created.body.id}`);
    const read = await call('records', 'GET', resolved.pathname, { token });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(created.body.id);
    expect((await call('records', 'DELETE', resolved.pathname, { token })).status).toBe(200);
  });
});
