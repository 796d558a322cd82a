import { bob, call, cy } from '../support/client';
import { alphaUser } from '../support/people';

/** Vaults and records end to end through the gateway (docs/records-api.md). */
describe('vaults and records through the gateway', () => {
  let owner: string;
  let stranger: string;
  let foreign: string;
  let vaultId: string;
  let secondVaultId: string;
  let recordId: string;
  const inbox = `family-${Date.now().toString(36)}`;

  beforeAll(async () => {
    [owner, stranger, foreign] = await Promise.all([alphaUser('rex'), bob(), cy()]);
  });

  it('creates vaults and reports inbox names', async () => {
    const free = await call('records', 'GET', `/vault/check-email?emailUsername=${inbox}`, { token: owner });
    expect(free.status).toBe(200);
    expect(free.text).toBe('email_username_available');

    const res = await call('records', 'POST', '/vault', {
      token: owner,
      body: { name: 'Family papers', emailUsername: inbox, firstName: 'Ann', lastName: 'Alpha' },
    });
    expect(res.status).toBe(201);
    vaultId = res.body.id;
    const second = await call('records', 'POST', '/vault', { token: owner, body: { name: 'Archive' } });
    expect(second.status).toBe(201);
    secondVaultId = second.body.id;

    const taken = await call('records', 'GET', `/vault/check-email?emailUsername=${inbox}`, { token: owner });
    expect(taken.text).not.toBe('email_username_available');
    const clash = await call('records', 'POST', '/vault', { token: stranger, body: { name: 'x', emailUsername: inbox } });
    expect(clash.status).toBe(409);
  });

  it('reads the vault with roles and plan features, home, branding and licences', async () => {
    const vault = await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: owner });
    expect(vault.status).toBe(200);
    expect(vault.body).toMatchObject({
      id: vaultId,
      name: 'Family papers',
      email: expect.stringMatching(new RegExp(`^${inbox}@`)),
      status: 'ACTIVE',
      type: 'individual',
      userVaultRole: ['vault_owner'],
    });
    expect(vault.body.subscriptionFeatures['vault.maxVaultRecords']).toEqual(expect.any(String));

    const home = await call('records', 'GET', `/vault/vault-id/${vaultId}/home?locale=es-US`, { token: owner });
    expect(home.status).toBe(200);
    expect(home.body.recordsType).toHaveLength(12);
    expect(home.body.maxRecordsReached).toBe(false);

    const branding = await call('records', 'GET', `/vault/vault-id/${vaultId}/branding?locale=en-CA&darkMode=darkMode`, {
      token: owner,
    });
    expect(branding.status).toBe(200);
    expect(branding.body.styleSheet.primaryColor).toMatch(/^#/);
    const badBranding = await call('records', 'GET', `/vault/vault-id/${vaultId}/branding?darkMode=dim`, { token: owner });
    expect(badBranding.status).toBe(400);

    const licences = await call('records', 'GET', `/vault/vault-id/${vaultId}/licenses`, { token: owner });
    expect(licences.status).toBe(200);
    expect(licences.body[0]).toMatchObject({
      subscriptionId: expect.any(String),
      plan: { id: expect.any(String), name: expect.any(String) },
    });
  });

  it('creates, finds, reads and updates a record', async () => {
    const created = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: owner,
      body: {
        name: 'Passport',
        description: '',
        recordTypeName: 'identityDocs',
        recordSubtypeName: 'passport',
        recordDetails: { number: 'X123' },
      },
    });
    expect(created.status).toBe(200);
    recordId = created.body.id;

    const found = await call('records', 'GET', `/vault/vault-id/${vaultId}/records?recordTypeName=identityDocs&status=ACTIVE`, {
      token: owner,
    });
    expect(found.body.map((r: { id: string }) => r.id)).toEqual([recordId]);
    const none = await call('records', 'GET', `/vault/vault-id/${vaultId}/records?name=nothing-like-this`, { token: owner });
    expect(none.body).toEqual([]);
    const badStatus = await call('records', 'GET', `/vault/vault-id/${vaultId}/records?status=LOST`, { token: owner });
    expect(badStatus.status).toBe(400);

    const lookup = await call('records', 'GET', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, { token: owner });
    expect(lookup.body).toMatchObject({
      id: recordId,
      name: 'Passport',
      recordType: { name: 'identityDocs' },
      recordSubtype: { name: 'passport', blockSections: expect.any(Object) },
      userRecordRole: expect.arrayContaining(['rec_owner']),
    });

    const updated = await call('records', 'PUT', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, {
      token: owner,
      body: {
        name: 'Passport (renewed)',
        description: 'valid to 2036',
        recordTypeName: 'identityDocs',
        recordSubtypeName: 'passport',
        lastModifiedBy: null,
        updatedAt: null,
        status: null,
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id: recordId });

    const invalid = await call('records', 'POST', `/vault/vault-id/${vaultId}/records`, {
      token: owner,
      body: { name: 'x', description: 'x', recordTypeName: 'identityDocs', recordSubtypeName: 'other' },
    });
    expect(invalid.status).toBe(400);
  });

  it('hides the vault and its records from a stranger and another tenant', async () => {
    for (const token of [stranger, foreign]) {
      expect((await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token })).status).toBe(404);
      expect((await call('records', 'GET', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, { token })).status).toBe(
        404,
      );
      expect((await call('records', 'DELETE', `/vault/vault-id/${vaultId}`, { token })).status).toBe(404);
    }
    const theirs = await call('records', 'POST', '/vault', { token: stranger, body: { name: 'Bob vault' } });
    const intoForeign = await call('records', 'PUT', `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, {
      token: owner,
      body: { destinationVaultId: theirs.body.id },
    });
    expect(intoForeign.status).toBe(404);
    const stillThere = await call('records', 'GET', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, { token: owner });
    expect(stillThere.status).toBe(200);
  });

  it('transfers the record to the owner second vault', async () => {
    const res = await call('records', 'PUT', `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, {
      token: owner,
      body: { destinationVaultId: secondVaultId },
    });
    expect(res.status).toBe(200);
    expect(
      (await call('records', 'GET', `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, { token: owner })).status,
    ).toBe(404);
    const moved = await call('records', 'GET', `/vault/vault-id/${secondVaultId}/records/record-id/${recordId}`, {
      token: owner,
    });
    expect(moved.body.name).toBe('Passport (renewed)');
  });

  it('deletes the record and the vault', async () => {
    const del = await call('records', 'DELETE', `/vault/vault-id/${secondVaultId}/records/record-id/${recordId}`, {
      token: owner,
    });
    expect(del.status).toBe(200);
    const search = await call('records', 'GET', `/vault/vault-id/${secondVaultId}/records`, { token: owner });
    expect(search.body).toEqual([]);
    const vault = await call('records', 'DELETE', `/vault/vault-id/${vaultId}`, { token: owner });
    expect(vault.status).toBe(200);
    expect((await call('records', 'GET', `/vault/vault-id/${vaultId}`, { token: owner })).status).toBe(404);
  });
});
