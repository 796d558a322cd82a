import { call, tokenFor } from '../support/client';
import { eventually } from '../support/people';

const sam = () => tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'sam@alpha.example', 'sam-password-1');
const sue = () => tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'sue@alpha.example', 'sue-password-1');

/**
 * Sharing a vault end to end: the accounts are created in the user module, reach the
 * records module's directory through the durable account events, and the owner shares,
 * changes and ends the guest's access (docs/records-api.md, Collaborators).
 */
describe('sharing a vault through the gateway', () => {
  let owner: string;
  let guest: string;
  let vaultId: string;
  let memberId: string;
  let guestAccountId: string;

  beforeAll(async () => {
    [owner, guest] = await Promise.all([sam(), sue()]);
    for (const [token, firstName] of [
      [owner, 'Sam'],
      [guest, 'Sue'],
    ]) {
      const res = await call('user', 'POST', '/accounts', { token, body: { firstName, lastName: 'Share' } });
      expect(res.status).toBe(200);
      if (token === guest) guestAccountId = res.body.id;
    }
    const vault = await call('records', 'POST', '/vault', {
      token: owner,
      body: { name: 'Household', licenseKey: 'PREMIUM-DEMO-2026' },
    });
    expect(vault.status).toBe(201);
    vaultId = vault.body.id;
  });

  it('the owner shares the vault with an account of the organisation once its account event arrived', async () => {
    let last = 0;
    await eventually(async () => {
      const res = await call('records', 'POST', `/vault/vault-id/${vaultId}/collaborators`, {
        token: owner,
        body: { username: 'sue@alpha.example', role: 'vault_editor' },
      });
      last = res.status;
      if (res.status === 201) {
        expect(res.body).toMatchObject({
          username: 'sue@alpha.example',
          firstName: 'Sue',
          lastName: 'Share',
          role: 'vault_editor',
        });
        memberId = res.body.id;
      } else {
        expect(res.body.code).toBe('account_not_found');
      }
      return res.status === 201;
    });
    expect(last).toBe(201);
    const list = await call('records', 'GET', `/vault/vault-id/${vaultId}/collaborators`, { token: guest });
    expect(list.status).toBe(200);
    expect(list.body.map((m: { role: string }) => m.role)).toEqual(['vault_owner', 'vault_editor']);
  });

  it('the guest reads and edits within its role, and cannot delete the vault or manage members', async () => {
    const vault = await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: guest });
    expect(vault.status).toBe(200);
    expect(vault.body.userVaultRole).toEqual(['vault_editor']);
    const record = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: guest,
      body: {
        name: 'Lease',
        description: 'Flat',
        recordTypeName: 'realEstate',
        recordSubtypeName: 'other',
        recordSubtypeOther: 'Lease',
      },
    });
    expect(record.status).toBe(200);
    expect((await call('records', 'DELETE', `/vault/vault-id/${vaultId}`, { token: guest })).status).toBe(403);
    const invite = await call('records', 'POST', `/vault/vault-id/${vaultId}/collaborators`, {
      token: guest,
      body: { username: 'sam@alpha.example', role: 'vault_viewer' },
    });
    expect(invite.status).toBe(403);

    const downgraded = await call('records', 'PUT', `/vault/vault-id/${vaultId}/collaborators/collaborator-id/${memberId}`, {
      token: owner,
      body: { role: 'vault_viewer' },
    });
    expect(downgraded.status).toBe(200);
    const refused = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: guest,
      body: {
        name: 'Car',
        description: 'Blue',
        recordTypeName: 'transportation',
        recordSubtypeName: 'other',
        recordSubtypeOther: 'Car',
      },
    });
    expect(refused.status).toBe(403);
  });

  it('logs the sharing as Network entries', async () => {
    await eventually(async () => {
      const log = await call('records', 'GET', `/vault/vault-id/${vaultId}/log?entity=Network`, { token: owner });
      return log.status === 200 && log.body.data.length >= 2;
    });
    const log = await call('records', 'GET', `/vault/vault-id/${vaultId}/log?entity=Network`, { token: owner });
    expect(log.body.data.map((e: { entity: string }) => e.entity)).toEqual(['Network', 'Network']);
    expect(log.body.data.map((e: { message: string }) => e.message).join(' | ')).toContain('shared the vault');
  });

  it('the owner removes the guest, whose very next request is a 404', async () => {
    const removed = await call('records', 'DELETE', `/vault/vault-id/${vaultId}/collaborators/collaborator-id/${memberId}`, {
      token: owner,
    });
    expect(removed.status).toBe(200);
    expect((await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: guest })).status).toBe(404);
    expect((await call('records', 'GET', `/vault/vault-id/${vaultId}/records`, { token: guest })).status).toBe(404);
  });

  it('a guest who deletes its user account leaves the vault shared with it', async () => {
    const shared = await call('records', 'POST', `/vault/vault-id/${vaultId}/collaborators`, {
      token: owner,
      body: { username: 'sue@alpha.example', role: 'vault_viewer' },
    });
    expect(shared.status).toBe(201);
    expect((await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: guest })).status).toBe(200);

    const deleted = await call('user', 'DELETE', `/accounts/account-id/${guestAccountId}`, { token: guest });
    expect(deleted.status).toBe(200);
    // every token of the identity is revoked on every module (the revocation bucket reaches records-service at once)
    await eventually(
      async () => (await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: guest })).status === 401,
      5_000,
    );

    // once records-service has the account.deleted event, the membership is over
    await eventually(async () => {
      const list = await call('records', 'GET', `/vault/vault-id/${vaultId}/collaborators`, { token: owner });
      return list.status === 200 && !list.body.some((m: { username: string }) => m.username === 'sue@alpha.example');
    });
    // and once the developer module has it, the identity signs in no more
    const signIn = () =>
      call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
        body: { clientSecret: 'alpha-prod-secret', username: 'sue@alpha.example', password: 'sue-password-1' },
      });
    await eventually(async () => (await signIn()).status === 403);
    expect((await signIn()).body).toMatchObject({ status: 403, code: 'account_deleted' });
  });
});
