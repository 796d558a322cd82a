import { Client } from 'undici';
import { call, domain, hostOf, Module, setupValue, tokenFor } from '../support/client';

const SECURITY = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** The gateway's security headers and early answers in front of the real modules (docs/gateway.md). */
describe('gateway hardening in front of the real modules', () => {
  let token: string;
  let vaultId: string;
  let recordId: string;

  // One vault for the whole file, deleted at the end, owned by an account no other suite uses.
  beforeAll(async () => {
    token = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'hal@alpha.example', 'hal-password-1');
    const vault = await call('records', 'POST', '/vault', { token, body: { name: 'Gateway hardening e2e' } });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token,
      body: { name: 'Scan', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
    });
    expect(record.status).toBe(200);
    recordId = record.body.id;
  });
  afterAll(async () => {
    if (recordId) await call('records', 'DELETE', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, { token });
    if (vaultId) expect((await call('records', 'DELETE', `/vault/vault-id/${vaultId}`, { token })).status).toBe(200);
  });

  it.each<Module>(['developer', 'user', 'records'])(
    'sets the security headers on the %s module: its description and an error',
    async (m) => {
      const described = await call(m, 'GET', '/api/v1/openapi.json');
      expect(described.status).toBe(200);
      expect(described.headers).toMatchObject({ ...SECURITY, 'content-security-policy': "frame-ancestors 'none'" });

      const refused = await call(m, 'GET', '/api/v1/nothing-here', { token: 'not-a-token' });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.headers).toMatchObject({ ...SECURITY, 'cache-control': 'no-store' });
    },
  );

  it('sets them, with no-store, on an authenticated JSON answer', async () => {
    const vault = await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token });
    expect(vault.status).toBe(200);
    expect(vault.headers).toMatchObject({ ...SECURITY, 'cache-control': 'no-store' });
  });

  it("keeps a module's deliberate Cache-Control (the JWKS) and adds the rest", async () => {
    const jwks = await call('developer', 'GET', '/api/v1/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.headers).toMatchObject({ ...SECURITY, 'cache-control': 'public, max-age=300' });
  });

  it('answers the next request of a keep-alive undici client after an upload refused early above the plan limit', async () => {
    const query = new URLSearchParams({ fileName: 'big.bin', correlationId: '1', fileType: 'document' });
    const path = `/api/v1/vault/vault-id/${vaultId}/records/record-id/${recordId}/record-files?${query}`;

    const port = Number(setupValue('E2E_GATEWAY_PORT'));
    const client = new Client(`https://127.0.0.1:${port}`, {
      connect: { rejectUnauthorized: false, servername: domain() },
      pipelining: 1,
      keepAliveTimeout: 30_000,
    });
    try {
      // Above the default plan's 10 MB per upload; the module refuses it from its Content-Length.
      const size = 11 * 1024 * 1024;
      const part = Buffer.alloc(size, 0x61);
      const first = await client.request({
        method: 'POST',
        path,
        headers: {
          host: hostOf('records'),
          authorization: `Bearer ${token}`,
          'content-type': 'multipart/form-data; boundary=e2e',
          'content-length': String(size),
        },
        body: part,
      });
      const problem = (await first.body.json()) as Record<string, unknown>;
      expect(first.statusCode).toBe(413);
      expect(first.headers.connection).toBe('close');
      expect(problem).toMatchObject({ code: 'payload_too_large' });

      const started = Date.now();
      const second = await client.request({
        method: 'GET',
        path: `/api/v1/vault/vault-id/${vaultId}`,
        headers: { host: hostOf('records'), authorization: `Bearer ${token}` },
      });
      expect(second.statusCode).toBe(200);
      expect(await second.body.json()).toMatchObject({ id: vaultId });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await client.close();
    }
  });
});
