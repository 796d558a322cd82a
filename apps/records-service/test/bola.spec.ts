import { Caller, recordBody, RecordsTestApp } from './support';

/**
 * Broken object level authorisation matrix: callers with no role (another tenant,
 * a stranger of the same tenant) and a foreign record behind one's own vault id
 * get 404 on every route, and the database does not change.
 */
describe('records-service object level authorisation', () => {
  let t: RecordsTestApp;
  let victim: Caller;
  let vaultId: string;
  let recordId: string;
  let attackerVault: string;
  let attackerRecord: string;
  let otherTenant: Caller;
  let stranger: Caller;
  let sameTenantAttacker: Caller;
  /** Collaborator ids of the victim's own memberships (vault owner, record owner). */
  let memberId: string;
  let recordMemberId: string;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_bola');
    victim = await t.caller('tenant-a');
    vaultId = await t.createVault(victim, { name: 'Victim vault' });
    recordId = await t.createRecord(victim, vaultId);
    otherTenant = await t.caller('tenant-b');
    stranger = await t.caller('tenant-a');
    sameTenantAttacker = await t.caller('tenant-a');
    attackerVault = await t.createVault(sameTenantAttacker, { name: 'Attacker vault' });
    attackerRecord = await t.createRecord(sameTenantAttacker, attackerVault);
    [{ id: memberId }] = await t.sql<{ id: string }>('SELECT id FROM vault_memberships WHERE vault_id = $1', [vaultId]);
    [{ id: recordMemberId }] = await t.sql<{ id: string }>('SELECT id FROM record_memberships WHERE record_id = $1', [recordId]);
  });
  afterAll(() => t?.stop());

  type Call = [string, string, string, object?];
  const callsOn = (v: string, r: string, dest: string): Call[] => [
    ['GET', `/vault/vault-id/${v}`, 'get vault'],
    ['PUT', `/vault/vault-id/${v}`, 'update vault', { name: 'pwned', emailUsername: 'pwned' }],
    ['DELETE', `/vault/vault-id/${v}`, 'delete vault'],
    ['GET', `/vault/vault-id/${v}/home`, 'home'],
    ['GET', `/vault/vault-id/${v}/branding`, 'branding'],
    ['GET', `/vault/vault-id/${v}/licenses`, 'licences'],
    ['POST', `/vault/vault-id/${v}/records`, 'create record', recordBody()],
    ['GET', `/vault/vault-id/${v}/records`, 'search records'],
    ['GET', `/vault/vault-id/${v}/records/record-id/${r}`, 'get record'],
    ['PUT', `/vault/vault-id/${v}/records/record-id/${r}`, 'update record', recordBody({ name: 'pwned' })],
    ['DELETE', `/vault/vault-id/${v}/records/record-id/${r}`, 'delete record'],
    ['PUT', `/vault/vault-id/${v}/records/record-id/${r}/transfer`, 'transfer record', { destinationVaultId: dest }],
    ['GET', `/vault/vault-id/${v}/collaborators`, 'list collaborators'],
    ['POST', `/vault/vault-id/${v}/collaborators`, 'add collaborator', { openId: 'vault|x', role: 'vault_editor' }],
    ['PUT', `/vault/vault-id/${v}/collaborators/collaborator-id/${memberId}`, 'change role', { role: 'vault_viewer' }],
    ['DELETE', `/vault/vault-id/${v}/collaborators/collaborator-id/${memberId}`, 'remove collaborator'],
    ['PUT', `/vault/vault-id/${v}/owner`, 'transfer ownership', { collaboratorId: memberId }],
    ['GET', `/vault/vault-id/${v}/records/record-id/${r}/collaborators`, 'list record collaborators'],
    [
      'POST',
      `/vault/vault-id/${v}/records/record-id/${r}/collaborators`,
      'add record collaborator',
      { openId: 'vault|x', role: 'rec_viewer' },
    ],
    [
      'PUT',
      `/vault/vault-id/${v}/records/record-id/${r}/collaborators/collaborator-id/${recordMemberId}`,
      'change record role',
      { role: 'rec_info' },
    ],
    [
      'DELETE',
      `/vault/vault-id/${v}/records/record-id/${r}/collaborators/collaborator-id/${recordMemberId}`,
      'remove record collaborator',
    ],
  ];

  const send = (c: Caller, [method, path, , body]: Call) => {
    switch (method) {
      case 'GET':
        return t.get(c, path);
      case 'DELETE':
        return t.delete(c, path);
      case 'POST':
        return t.post(c, path, body);
      default:
        return t.put(c, path, body);
    }
  };

  async function expectAll404(c: Caller, calls: Call[]) {
    const before = await t.snapshot();
    const results: string[] = [];
    for (const call of calls) {
      const res = await send(c, call);
      results.push(`${call[2]}: ${res.status}${res.status === 404 ? '' : ` ${JSON.stringify(res.body)}`}`);
      if (res.status === 404) expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    }
    expect(results).toEqual(calls.map((c) => `${c[2]}: 404`));
    expect(await t.snapshot()).toBe(before);
  }

  it('hides the vault and record from a caller of another tenant', async () => {
    const theirVault = await t.createVault(otherTenant);
    await expectAll404(otherTenant, callsOn(vaultId, recordId, theirVault));
  });

  it('hides the vault and record from a same-tenant caller without a role', async () => {
    await expectAll404(stranger, callsOn(vaultId, recordId, vaultId));
  });

  it('hides a foreign record behind the caller own vault id', async () => {
    const recordCalls = callsOn(attackerVault, recordId, vaultId).filter((c) => c[1].includes('/record-id/'));
    await expectAll404(sameTenantAttacker, recordCalls);
  });

  it('refuses a transfer into a vault the caller has no role on', async () => {
    await expectAll404(sameTenantAttacker, [
      [
        'PUT',
        `/vault/vault-id/${attackerVault}/records/record-id/${attackerRecord}/transfer`,
        'transfer into victim vault',
        { destinationVaultId: vaultId },
      ],
    ]);
    // and into another tenant's vault, even knowing its id
    const foreign = await t.createVault(otherTenant);
    await expectAll404(sameTenantAttacker, [
      [
        'PUT',
        `/vault/vault-id/${attackerVault}/records/record-id/${attackerRecord}/transfer`,
        'transfer into other tenant vault',
        { destinationVaultId: foreign },
      ],
    ]);
  });

  it('does not reveal an inbox-name conflict when updating a vault that is not visible', async () => {
    await t.put(victim, `/vault/vault-id/${vaultId}`, { emailUsername: 'victim-box' }).expect(201);
    await expectAll404(stranger, [['PUT', `/vault/vault-id/${vaultId}`, 'update', { emailUsername: 'victim-box' }]]);
  });

  it('still serves the rightful owner afterwards', async () => {
    const res = await t.get(victim, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
    expect(res.body.name).toBe('My passport');
    expect((await t.get(victim, `/vault/vault-id/${vaultId}`)).body.name).toBe('Victim vault');
  });
});
