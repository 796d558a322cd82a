import { SUBJECTS } from '@vault/contracts';
import { Caller, recordBody, RecordsTestApp, writePlansFile } from './support';

describe('plan quotas', () => {
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    const plans = writePlansFile({
      free: { 'vault.maxVaultRecords': '2', 'account.maxOwnedVaults': '2' },
      premium: { 'vault.maxVaultRecords': '3', 'account.maxOwnedVaults': '3' },
    });
    t = await RecordsTestApp.start('records_quotas', { VAULT_PLANS_FILE: plans, VAULT_INBOX_DOMAIN: 'mail.example.org' });
  });
  beforeEach(async () => {
    owner = await t.caller();
  });
  afterAll(() => t?.stop());

  it('refuses a record beyond vault.maxVaultRecords with 409 max_records_reached and writes nothing', async () => {
    const vaultId = await t.createVault(owner);
    await t.createRecord(owner, vaultId);
    let home = await t.get(owner, `/vault/vault-id/${vaultId}/home`).expect(200);
    expect(home.body.maxRecordsReached).toBe(false);
    const second = await t.createRecord(owner, vaultId);
    home = await t.get(owner, `/vault/vault-id/${vaultId}/home`).expect(200);
    expect(home.body.maxRecordsReached).toBe(true);
    const before = await t.snapshot();
    const res = await t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody()).expect(409);
    expect(res.body).toMatchObject({ status: 409, code: 'max_records_reached' });
    expect(await t.snapshot()).toBe(before);
    // a deleted record frees its place
    await t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${second}`).expect(200);
    await t.createRecord(owner, vaultId);
  });

  it('holds the record quota under concurrent creates', async () => {
    const vaultId = await t.createVault(owner);
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody())),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 409, 409, 409, 409]);
    const [{ count }] = await t.sql<{ count: string }>('SELECT count(*) FROM records WHERE vault_id = $1', [vaultId]);
    expect(count).toBe('2');
    const events = (await t.outbox(SUBJECTS.recordCreated)).filter((e) => e.vault_id === vaultId);
    expect(events).toHaveLength(2);
  });

  it('uses the plan of the licence key: a premium vault holds more records', async () => {
    const vaultId = await t.createVault(owner, { licenseKey: 'PREMIUM-DEMO-2026' });
    for (let i = 0; i < 3; i++) await t.createRecord(owner, vaultId);
    await t.post(owner, `/vault/vault-id/${vaultId}/records`, recordBody()).expect(409);
  });

  it('refuses a transfer into a full vault with 409 and moves nothing', async () => {
    const full = await t.createVault(owner);
    await t.createRecord(owner, full);
    await t.createRecord(owner, full);
    const source = await t.createVault(owner);
    const recordId = await t.createRecord(owner, source);
    const before = await t.snapshot();
    const res = await t
      .put(owner, `/vault/vault-id/${source}/records/record-id/${recordId}/transfer`, { destinationVaultId: full })
      .expect(409);
    expect(res.body.code).toBe('max_records_reached');
    expect(await t.snapshot()).toBe(before);
  });

  it('refuses a vault beyond account.maxOwnedVaults with 409 and writes nothing', async () => {
    await t.createVault(owner);
    await t.createVault(owner);
    const before = await t.snapshot();
    const res = await t.post(owner, '/vault', {}).expect(409);
    expect(res.body.code).toBe('max_owned_vaults_reached');
    expect(await t.snapshot()).toBe(before);
    // a premium licence raises the account limit
    await t.post(owner, '/vault', { licenseKey: 'PREMIUM-DEMO-2026' }).expect(201);
    await t.post(owner, '/vault', {}).expect(409);
  });

  it('holds the owned-vaults quota under concurrent creates', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => t.post(owner, '/vault', {})));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
  });

  it('shows inbox addresses in the configured domain', async () => {
    const id = await t.createVault(owner, { emailUsername: 'quota-box' });
    expect((await t.get(owner, `/vault/vault-id/${id}`)).body.email).toBe('quota-box@mail.example.org');
  });

  it('serves the features of the configured plans', async () => {
    const id = await t.createVault(owner);
    const res = await t.get(owner, `/vault/vault-id/${id}`).expect(200);
    expect(res.body.subscriptionFeatures['vault.maxVaultRecords']).toBe('2');
  });
});
