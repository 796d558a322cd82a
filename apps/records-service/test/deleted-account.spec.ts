import { randomUUID } from 'node:crypto';
import { RevocationService } from '@vault/platform';
import { AccountDirectoryService } from '../src/directory/account-directory.service';
import { VaultDeletionPurger } from '../src/vaults/vault-deletion.purger';
import { Caller, RecordsTestApp } from './support';

/**
 * A deleted account in the records module: the user module revokes every token of the
 * identity (revocation bucket) and announces account.deleted.v1 (account directory).
 * Its tokens are refused on every route, creates included; the vaults it owned alone
 * are removed after the grace period, those shared stay with their collaborators
 * (docs/user-api.md, Account deletion).
 */
describe('records-service: a deleted account', () => {
  let t: RecordsTestApp;
  let directory: AccountDirectoryService;
  let revocations: RevocationService;
  let version = 1;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_deleted_account');
    directory = t.app.get(AccountDirectoryService);
    revocations = t.app.get(RevocationService);
  });
  afterAll(() => t?.stop());

  const DAY = 86_400_000;
  const dueAt = async (vaultId: string) =>
    (await t.sql<{ due: Date | null }>(`SELECT deletion_due_at AS due FROM vaults WHERE id = $1`, [vaultId]))[0]?.due;

  const account = async (active = true, c?: Caller): Promise<Caller> => {
    const caller = c ?? (await t.caller('tenant-a', `${randomUUID().slice(0, 8)}@example.com`));
    await directory.apply({
      tenantId: caller.tenantId,
      openId: caller.openId,
      accountId: randomUUID(),
      username: caller.username,
      firstName: 'Ann',
      lastName: 'Lee',
      active,
      version: version++,
    });
    return caller;
  };
  /** What the user module's DELETE /accounts/account-id/{id} does that reaches this module. */
  const deleteAccount = async (c: Caller) => {
    await revocations.revokeIdentity(c.tenantId, c.openId);
    await account(false, c);
  };

  it('refuses every token of the identity, one issued after the deletion too: no new vault, no read', async () => {
    const owner = await account();
    const vaultId = await t.createVault(owner, { name: 'Mine' });
    const other = await account();
    await deleteAccount(owner);

    for (const c of [owner, { ...owner, token: await t.idp.token({ sub: owner.openId, tid: owner.tenantId }) }]) {
      const create = await t.post(c, '/vault', { name: 'After deletion' }).expect(401);
      expect(create.body).toMatchObject({ code: 'unauthorized', detail: expect.stringMatching(/revoked/) });
      await t.get(c, `/vault/vault-id/${vaultId}`).expect(401);
    }
    expect(await t.sql(`SELECT count(*)::int AS n FROM vaults WHERE name = 'After deletion'`)).toEqual([{ n: 0 }]);
    // the same openId in another tenant is another identity
    await t.post({ ...owner, tenantId: 'tenant-b', token: await t.idp.token({ sub: owner.openId, tid: 'tenant-b' }) }, '/vault', { name: 'B' }).expect(201);
    await t.post(other, '/vault', { name: 'Unaffected' }).expect(201);
  });

  it('keeps the vaults it owned, with their ownership, for the collaborators who hold roles on them', async () => {
    const owner = await account();
    const guest = await account();
    const vaultId = await t.createVault(owner, { name: 'Family papers', licenseKey: 'PREMIUM-DEMO-2026' });
    await t.post(owner, `/vault/vault-id/${vaultId}/collaborators`, { username: guest.username, role: 'vault_editor' }).expect(201);
    await deleteAccount(owner);

    expect(await t.sql(`SELECT open_id, role FROM vault_memberships WHERE vault_id = $1 ORDER BY role DESC`, [vaultId])).toEqual([
      { open_id: owner.openId, role: 'vault_owner' },
      { open_id: guest.openId, role: 'vault_editor' },
    ]);
    const read = await t.get(guest, `/vault/vault-id/${vaultId}`).expect(200);
    expect(read.body).toMatchObject({ name: 'Family papers', userVaultRole: ['vault_editor'] });
    expect(await dueAt(vaultId)).toBeNull();
  });

  it('removes the vaults it owned alone after the grace period (30 days), with their records; shared ones stay', async () => {
    const owner = await account();
    const guest = await account();
    const alone = await t.createVault(owner, { name: 'Alone', licenseKey: 'PREMIUM-DEMO-2026' });
    const recordId = await t.createRecord(owner, alone);
    const recordShared = await t.createVault(owner, { name: 'Record shared', licenseKey: 'PREMIUM-DEMO-2026' });
    const sharedRecord = await t.createRecord(owner, recordShared);
    await t.post(owner, `/vault/vault-id/${recordShared}/records/record-id/${sharedRecord}/collaborators`, { username: guest.username, role: 'rec_viewer' }).expect(201);
    const before = Date.now();
    await deleteAccount(owner);

    const due = (await dueAt(alone)) as Date;
    expect(due.getTime()).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(due.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY);
    expect(await dueAt(recordShared)).toBeNull();
    // a repeated event schedules nothing again
    await account(false, owner);
    expect(await dueAt(alone)).toEqual(due);

    const purger = t.app.get(VaultDeletionPurger);
    await purger.purgeDue(new Date(due.getTime() - 1000));
    expect(await dueAt(alone)).toEqual(due);
    await purger.purgeDue(new Date(due.getTime() + 1000));
    expect(await t.sql(`SELECT id FROM vaults WHERE id = ANY($1)`, [[alone, recordShared]])).toEqual([{ id: recordShared }]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM records WHERE id = $1`, [recordId])).toEqual([{ n: 0 }]);
    expect(await t.sql(`SELECT count(*)::int AS n FROM vault_memberships WHERE vault_id = $1`, [alone])).toEqual([{ n: 0 }]);
    const deleted = (await t.outbox('vault.vault.deleted.v1')).filter((e) => e.vault_id === alone);
    expect(deleted).toHaveLength(1);
    await t.get(guest, `/vault/vault-id/${recordShared}/records/record-id/${sharedRecord}`).expect(200);
  });
});
