import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { RevocationService } from '@vault/platform/auth';
import { TestClock } from '@vault/platform/testing';
import { AccountDirectoryService } from '../src/capabilities/directory/account-directory.service';
import { VaultDeletionPurger } from '../src/features/vaults/vault-deletion.purger';
import { waitFor } from './activity-log.harness';
import { Caller, RecordsTestApp } from './support';

/**
 * A deleted account in the records module: the user module revokes every token of the
 * identity (revocation bucket) and announces account.deleted.v1 (account directory).
 * Its tokens are refused on every route, creates included; the vaults it owned alone
 * are removed after the grace period, those shared stay with their collaborators, a
 * vault_editor of them may claim their ownership, and they are removed after the grace
 * period once their last collaborator is gone (docs/user-api.md, Account deletion).
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
    await t
      .post({ ...owner, tenantId: 'tenant-b', token: await t.idp.token({ sub: owner.openId, tid: 'tenant-b' }) }, '/vault', {
        name: 'B',
      })
      .expect(201);
    await t.post(other, '/vault', { name: 'Unaffected' }).expect(201);
  });

  it('keeps the vaults it owned, with their ownership, for the collaborators who hold roles on them', async () => {
    const owner = await account();
    const guest = await account();
    const vaultId = await t.createVault(owner, { name: 'Family papers', licenseKey: 'PREMIUM-DEMO-2026' });
    await t
      .post(owner, `/vault/vault-id/${vaultId}/collaborators`, { username: guest.username, role: 'vault_editor' })
      .expect(201);
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
    await t
      .post(owner, `/vault/vault-id/${recordShared}/records/record-id/${sharedRecord}/collaborators`, {
        username: guest.username,
        role: 'rec_viewer',
      })
      .expect(201);
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

  describe('a shared vault of a deleted owner', () => {
    let clock: TestClock | undefined;
    afterEach(() => {
      clock?.restore();
      clock = undefined;
    });

    const PREMIUM = { licenseKey: 'PREMIUM-DEMO-2026' };
    const share = async (owner: Caller, vaultId: string, c: Caller, role: string): Promise<string> => {
      const res = await t.post(owner, `/vault/vault-id/${vaultId}/collaborators`, { username: c.username, role }).expect(201);
      return res.body.id as string;
    };
    const claim = (c: Caller, vaultId: string) => t.post(c, `/vault/vault-id/${vaultId}/claim-ownership`);
    const leave = async (c: Caller, vaultId: string, collaboratorId: string, record?: string) => {
      const path = record ? `/vault/vault-id/${vaultId}/records/record-id/${record}` : `/vault/vault-id/${vaultId}`;
      await t.delete(c, `${path}/collaborators/collaborator-id/${collaboratorId}`).expect(200);
    };
    const members = (vaultId: string) =>
      t.sql<{ open_id: string; role: string }>(
        `SELECT open_id, role FROM vault_memberships WHERE vault_id = $1 ORDER BY role, open_id`,
        [vaultId],
      );
    const transfers = async (vaultId: string) =>
      (await t.outbox('vault.vault.transferred.v1')).filter((e) => e.vault_id === vaultId);
    const exists = async (vaultId: string) => (await t.sql(`SELECT 1 FROM vaults WHERE id = $1`, [vaultId])).length === 1;

    it("lets its vault_editor claim it: the editor's membership becomes the owner's, the licence stays, a scheduled removal ends", async () => {
      const [owner, editor, viewer, info, recordGuest, stranger] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => account()));
      const otherTenant = await t.caller('tenant-b');
      const vaultId = await t.createVault(owner, { name: 'Family papers', default: true, ...PREMIUM });
      const recordId = await t.createRecord(owner, vaultId);
      const editorId = await share(owner, vaultId, editor, 'vault_editor');
      await share(owner, vaultId, viewer, 'vault_viewer');
      await share(owner, vaultId, info, 'vault_info');
      await t
        .post(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/collaborators`, {
          username: recordGuest.username,
          role: 'rec_editor',
        })
        .expect(201);

      // while the owner's account is active, nobody claims (the owner itself included)
      for (const c of [editor, owner]) {
        const res = await claim(c, vaultId).expect(409);
        expect(res.body).toMatchObject({ status: 409, code: 'vault_owner_active', requestId: expect.any(String) });
      }
      await deleteAccount(owner);
      // an operator scheduled its removal by hand (before claims existed, docs/user-api.md)
      await t.sql(`UPDATE vaults SET deletion_due_at = now() + interval '1 day' WHERE id = $1`, [vaultId]);
      const licences = (await t.get(editor, `/vault/vault-id/${vaultId}/licenses`).expect(200)).body;

      const before = await t.snapshot();
      for (const [c, status, code] of [
        [viewer, 403, 'forbidden'],
        [info, 403, 'forbidden'],
        [recordGuest, 403, 'forbidden'],
        [stranger, 404, 'not_found'],
        [otherTenant, 404, 'not_found'],
      ] as const) {
        const res = await claim(c, vaultId);
        expect([c.username, res.status, res.body.code]).toEqual([c.username, status, code]);
        expect(res.body.requestId).toEqual(expect.any(String));
      }
      expect(await t.snapshot()).toBe(before);

      const res = await claim(editor, vaultId).expect(200);
      expect(res.body[0]).toMatchObject({ id: editorId, openId: editor.openId, username: editor.username, role: 'vault_owner' });
      expect(res.body.map((m: { openId: string }) => m.openId)).not.toContain(owner.openId);
      expect(await members(vaultId)).toEqual([
        { open_id: info.openId, role: 'vault_info' },
        { open_id: editor.openId, role: 'vault_owner' },
        { open_id: viewer.openId, role: 'vault_viewer' },
      ]);
      expect(await dueAt(vaultId)).toBeNull();
      expect(await t.sql(`SELECT is_default FROM vaults WHERE id = $1`, [vaultId])).toEqual([{ is_default: false }]);
      expect((await t.get(editor, `/vault/vault-id/${vaultId}/licenses`).expect(200)).body).toEqual(licences);
      expect((await t.get(editor, `/vault/vault-id/${vaultId}`).expect(200)).body.userVaultRole).toEqual(['vault_owner']);
      // announced as a transfer to the claimant, by the claimant, marked as a claim (the log reads it as one)
      const [event, ...more] = await transfers(vaultId);
      expect(more).toEqual([]);
      expect(event.payload).toMatchObject({
        actor: { openId: editor.openId },
        collaborator: { id: editorId, openId: editor.openId, role: 'vault_owner' },
        previousRole: 'vault_editor',
        claimed: true,
      });
      // the vault has a reachable owner again: it shares, and a second claim is a conflict
      await share(editor, vaultId, stranger, 'vault_viewer');
      expect((await claim(editor, vaultId).expect(409)).body.code).toBe('vault_owner_active');
      await t.get(recordGuest, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
    });

    it('gives the vault to exactly one of two editors claiming at once; the other gets 409', async () => {
      const [owner, first, second] = await Promise.all([1, 2, 3].map(() => account()));
      const vaultId = await t.createVault(owner, PREMIUM);
      await share(owner, vaultId, first, 'vault_editor');
      await share(owner, vaultId, second, 'vault_editor');
      await deleteAccount(owner);

      const answers = await Promise.all([first, second].map((c) => claim(c, vaultId)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = answers[0].status === 200 ? first : second;
      const loser = winner === first ? second : first;
      expect(answers.find((r) => r.status === 409)?.body.code).toBe('vault_owner_active');
      expect(await members(vaultId)).toEqual([
        { open_id: loser.openId, role: 'vault_editor' },
        { open_id: winner.openId, role: 'vault_owner' },
      ]);
      expect((await transfers(vaultId)).map((e) => e.payload.collaborator.openId)).toEqual([winner.openId]);
    });

    it("refuses a claim that would take the editor beyond its plans' owned vaults; nothing changes", async () => {
      const [owner, editor] = await Promise.all([account(), account()]);
      const vaultId = await t.createVault(owner, PREMIUM);
      await share(owner, vaultId, editor, 'vault_editor');
      for (let i = 0; i < 10; i++) await t.createVault(editor, PREMIUM);
      await deleteAccount(owner);

      const before = await t.snapshot();
      const res = await claim(editor, vaultId).expect(409);
      expect(res.body).toMatchObject({ code: 'max_owned_vaults_reached', requestId: expect.any(String) });
      expect(await t.snapshot()).toBe(before);
    });

    it('is scheduled for removal when its last collaborator leaves, not while one remains, and removed after the grace period', async () => {
      const [owner, editor, viewer] = await Promise.all([account(), account(), account()]);
      const vaultId = await t.createVault(owner, PREMIUM);
      const editorId = await share(owner, vaultId, editor, 'vault_editor');
      const viewerId = await share(owner, vaultId, viewer, 'vault_viewer');
      await t.createRecord(editor, vaultId);
      await deleteAccount(owner);
      expect(await dueAt(vaultId)).toBeNull();

      await leave(viewer, vaultId, viewerId);
      expect(await dueAt(vaultId)).toBeNull();
      const before = Date.now();
      await leave(editor, vaultId, editorId);
      const due = (await dueAt(vaultId)) as Date;
      expect(due.getTime()).toBeGreaterThanOrEqual(before + 30 * DAY);
      expect(due.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY);

      const purger = t.app.get(VaultDeletionPurger);
      clock = TestClock.install();
      clock.advance(29 * DAY);
      await purger.purgeDue();
      expect(await exists(vaultId)).toBe(true);
      clock.advance(DAY + 60_000);
      await purger.purgeDue();
      expect(await exists(vaultId)).toBe(false);
      const [deleted] = (await t.outbox('vault.vault.deleted.v1')).filter((e) => e.vault_id === vaultId);
      expect(deleted.payload.actor).toMatchObject({ openId: 'system' });
    });

    it('does not count a guest of a deleted record, who reaches nothing of the vault, as a member that keeps it', async () => {
      const [owner, editor, guest] = await Promise.all([account(), account(), account()]);
      const vaultId = await t.createVault(owner, PREMIUM);
      const editorId = await share(owner, vaultId, editor, 'vault_editor');
      const recordId = await t.createRecord(editor, vaultId);
      await t
        .post(editor, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/collaborators`, {
          username: guest.username,
          role: 'rec_viewer',
        })
        .expect(201);
      await deleteAccount(owner);

      await t.delete(editor, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
      await t.get(guest, `/vault/vault-id/${vaultId}`).expect(404);
      await leave(editor, vaultId, editorId);
      expect(await dueAt(vaultId)).toEqual(expect.any(Date));
    });

    it.each([
      ['the last other member', false],
      ['the owner', true],
    ])('is scheduled when a member leaves while the account of %s is being deleted', async (_, ownerGoes) => {
      const [owner, editor, viewer] = await Promise.all([account(), account(), account()]);
      const vaultId = await t.createVault(owner, PREMIUM);
      if (!ownerGoes) await share(owner, vaultId, editor, 'vault_editor');
      await share(owner, vaultId, viewer, 'vault_viewer');
      if (!ownerGoes) await deleteAccount(owner);
      const goes = ownerGoes ? owner : editor;
      const lockWaits = async () =>
        (
          await t.sql<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        )[0].n;

      // The viewer leaves as a leave does (under the vault row lock); before it commits, the
      // account is deleted: neither sees the other's change unless one waits for the other.
      const leaving = new Client({ connectionString: t.db.url });
      await leaving.connect();
      let deletion: Promise<Caller> | undefined;
      try {
        await leaving.query('BEGIN');
        await leaving.query('SELECT 1 FROM vaults WHERE id = $1 FOR UPDATE', [vaultId]);
        await leaving.query('DELETE FROM vault_memberships WHERE vault_id = $1 AND open_id = $2', [vaultId, viewer.openId]);
        let ended = false;
        deletion = account(false, goes).finally(() => (ended = true));
        await waitFor(
          async () => ended || (await lockWaits()) > 0,
          20_000,
          'the account deletion to wait for the vault (or end)',
        );
        await leaving.query('COMMIT');
      } finally {
        await leaving.end();
      }
      await deletion;

      expect(await members(vaultId)).toEqual([{ open_id: owner.openId, role: 'vault_owner' }]);
      expect(await dueAt(vaultId)).toEqual(expect.any(Date));
    });

    it('counts the grace period from the moment the last member is gone: a record guest leaving, an account deleted later', async () => {
      const [owner, editor, guest] = await Promise.all([account(), account(), account()]);
      const vaultId = await t.createVault(owner, PREMIUM);
      const recordId = await t.createRecord(owner, vaultId);
      const editorId = await share(owner, vaultId, editor, 'vault_editor');
      const guestId = (
        await t
          .post(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/collaborators`, {
            username: guest.username,
            role: 'rec_viewer',
          })
          .expect(201)
      ).body.id as string;
      const other = await t.createVault(owner, PREMIUM);
      await share(owner, other, editor, 'vault_viewer');
      await deleteAccount(owner);

      // the editor leaves: the record guest still holds a role; then the guest leaves its record
      await leave(editor, vaultId, editorId);
      expect(await dueAt(vaultId)).toBeNull();
      const before = Date.now();
      await leave(guest, vaultId, guestId, recordId);
      const due = (await dueAt(vaultId)) as Date;
      expect(due.getTime()).toBeGreaterThanOrEqual(before + 30 * DAY);
      expect(due.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY);

      // the last member of the other vault has its account deleted 20 days after the owner: 30 days from then
      expect(await dueAt(other)).toBeNull();
      clock = TestClock.install();
      clock.advance(20 * DAY);
      const deletedAt = Date.now();
      await account(false, editor);
      const otherDue = (await dueAt(other)) as Date;
      expect(otherDue.getTime()).toBeGreaterThanOrEqual(deletedAt + 30 * DAY);
      expect(otherDue.getTime()).toBeLessThanOrEqual(Date.now() + 30 * DAY);
    });
  });
});
