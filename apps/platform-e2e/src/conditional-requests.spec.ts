import { call, Reply, tokenFor } from '../support/client';

/**
 * Conditional requests through the gateway (docs/retries-and-concurrency.md): ETag on reads,
 * 304 for If-None-Match, 412 for a stale If-Match with nothing changed, one winner among
 * racing writers, the PUT's ETag equal to the next GET's; a vault and a record (records
 * module), an account and its settings (user module).
 */
describe('conditional requests through the gateway', () => {
  let token: string;
  let accountId: string;
  let vaultId: string;
  let recordId: string;

  const etagOf = (r: Reply) => r.headers['etag'] as string;
  const record = (name: string) => ({ name, description: 'd', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' });
  const profile = (firstName: string) => ({ username: 'eve@alpha.example', firstName, lastName: 'Eps' });

  beforeAll(async () => {
    token = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'eve@alpha.example', 'eve-password-1');
    const account = await call('user', 'POST', '/accounts', { token, body: profile('Eve') });
    expect(account.status).toBe(200);
    accountId = account.body.id;
    const vault = await call('records', 'POST', '/vault', { token, body: { name: 'Conditional' } });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
    const rec = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, { token, body: record('Passport') });
    expect(rec.status).toBe(200);
    recordId = rec.body.id;
  });

  // Vault and record views show the caller's roles, so their ETags name them after the version.
  const resources = () => [
    {
      module: 'records' as const,
      path: `/vault/vault-id/${vaultId}`,
      body: (n: string) => ({ name: n }),
      putStatus: 201,
      id: vaultId,
      roles: '.vault_owner',
    },
    {
      module: 'records' as const,
      path: `/vault/vault-id/${vaultId}/records/record-id/${recordId}`,
      body: record,
      putStatus: 200,
      id: recordId,
      roles: '.vault_owner+rec_owner',
    },
    {
      module: 'user' as const,
      path: `/accounts/account-id/${accountId}`,
      body: profile,
      putStatus: 200,
      id: accountId,
      roles: '',
    },
  ];

  it('GET answers a strong ETag; If-None-Match with it is 304 without a body, with the ETag', async () => {
    for (const r of resources()) {
      const get = await call(r.module, 'GET', r.path, { token });
      expect(get.status).toBe(200);
      expect(etagOf(get)).toBe(`"${r.id}.1${r.roles}"`);
      // personal data: the gateway's no-store stays; clients revalidate with the ETag themselves
      expect(get.headers['cache-control']).toBe('no-store');
      const again = await call(r.module, 'GET', r.path, { token, headers: { 'if-none-match': etagOf(get) } });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(etagOf(again)).toBe(etagOf(get));
      expect(again.headers['x-request-id']).toEqual(expect.any(String));
    }
    const settings = await call('user', 'GET', `/accounts/account-id/${accountId}/settings`, { token });
    const notModified = await call('user', 'GET', `/accounts/account-id/${accountId}/settings`, {
      token,
      headers: { 'if-none-match': etagOf(settings) },
    });
    expect(notModified.status).toBe(304);
  });

  it('PUT answers the new ETag, which the next GET shows; a stale If-Match is 412 and changes nothing', async () => {
    for (const r of resources()) {
      const before = etagOf(await call(r.module, 'GET', r.path, { token }));
      const put = await call(r.module, 'PUT', r.path, { token, body: r.body('Second'), headers: { 'if-match': before } });
      expect(put.status).toBe(r.putStatus);
      expect(etagOf(put)).toBe(`"${r.id}.2${r.roles}"`);
      const get = await call(r.module, 'GET', r.path, { token });
      expect(etagOf(get)).toBe(etagOf(put));

      const stale = await call(r.module, 'PUT', r.path, { token, body: r.body('Third'), headers: { 'if-match': before } });
      expect(stale.status).toBe(412);
      expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(stale.body).toMatchObject({ status: 412, code: 'precondition_failed', requestId: expect.any(String) });
      const after = await call(r.module, 'GET', r.path, { token });
      expect(after.body).toEqual(get.body);
      expect(etagOf(after)).toBe(etagOf(put));
    }
  });

  it('two writers racing with the same ETag: exactly one wins, the other gets 412', async () => {
    for (const r of resources()) {
      const etag = etagOf(await call(r.module, 'GET', r.path, { token }));
      const answers = await Promise.all(
        ['Left', 'Right'].map((n) => call(r.module, 'PUT', r.path, { token, body: r.body(n), headers: { 'if-match': etag } })),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([r.putStatus, 412].sort());
      const winner = answers.find((a) => a.status === r.putStatus) as Reply;
      expect(etagOf(await call(r.module, 'GET', r.path, { token }))).toBe(etagOf(winner));
    }
  });

  it('DELETE with a stale If-Match is 412 and the resource stays; with the current one it goes', async () => {
    const path = `/vault/vault-id/${vaultId}/records/record-id/${recordId}`;
    const current = etagOf(await call('records', 'GET', path, { token }));
    const stale = await call('records', 'DELETE', path, {
      token,
      headers: { 'if-match': `"${recordId}.1.vault_owner+rec_owner"` },
    });
    expect(stale.status).toBe(412);
    expect((await call('records', 'GET', path, { token })).status).toBe(200);
    expect((await call('records', 'DELETE', path, { token, headers: { 'if-match': current } })).status).toBe(200);
    expect((await call('records', 'GET', path, { token })).status).toBe(404);

    const vault = `/vault/vault-id/${vaultId}`;
    expect(
      (await call('records', 'DELETE', vault, { token, headers: { 'if-match': `"${vaultId}.1.vault_owner"` } })).status,
    ).toBe(412);
    expect((await call('records', 'GET', vault, { token })).status).toBe(200);
  });
});
