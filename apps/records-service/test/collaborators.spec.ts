import { randomUUID } from 'node:crypto';
import { AccountDirectoryService } from '../src/capabilities/directory/account-directory.service';
import { Caller, recordBody, RecordsTestApp, writePlansFile } from './support';

const PREMIUM = 'PREMIUM-DEMO-2026';
/** In this suite the family plan invites but allows no guest editors and 3 owned vaults. */
const FAMILY = 'FAMILY-DEMO-2026';

describe('collaborators: sharing vaults and records', () => {
  let t: RecordsTestApp;
  let directory: AccountDirectoryService;
  let version = 1;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_collab', {
      VAULT_PLANS_FILE: writePlansFile({
        family: {
          'guestVaults.vaultEditorAbility': '0',
          'guestVaults.recordEditorAbility': '0',
          'account.maxOwnedVaults': '3',
        },
      }),
    });
    directory = t.app.get(AccountDirectoryService);
  });
  afterAll(() => t?.stop());

  /** A caller that the account directory knows (as user-service's events would have told it). */
  const account = async (tenantId = 'tenant-a', names = { firstName: 'Ada', lastName: 'Lovelace' }): Promise<Caller> => {
    const c = await t.caller(tenantId, `${randomUUID().slice(0, 8)}@example.com`);
    await directory.apply({
      tenantId,
      openId: c.openId,
      accountId: randomUUID(),
      username: c.username,
      ...names,
      active: true,
      version: version++,
    });
    return c;
  };
  const vaultPath = (v: string) => `/vault/vault-id/${v}`;
  const members = (v: string) => `${vaultPath(v)}/collaborators`;
  const member = (v: string, id: string) => `${members(v)}/collaborator-id/${id}`;
  const recordMembers = (v: string, r: string) => `${vaultPath(v)}/records/record-id/${r}/collaborators`;

  /** An owner with a vault on the premium plan. */
  const sharedVault = async (licenseKey = PREMIUM) => {
    const owner = await account();
    const vaultId = await t.createVault(owner, {
      name: 'Family papers',
      ...(licenseKey ? { licenseKey } : {}),
    });
    return { owner, vaultId };
  };
  const share = async (owner: Caller, vaultId: string, guest: Caller, role: string) =>
    (await t.post(owner, members(vaultId), { username: guest.username, role }).expect(201)).body as { id: string };

  it('the owner shares a vault by username: 201 with the names from the directory; the list shows the owner first', async () => {
    const { owner, vaultId } = await sharedVault();
    const guest = await account('tenant-a', {
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    const res = await t
      .post(owner, members(vaultId), {
        username: guest.username.toUpperCase(),
        role: 'vault_editor',
      })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      openId: guest.openId,
      username: guest.username,
      firstName: 'Grace',
      lastName: 'Hopper',
      role: 'vault_editor',
      createdAt: expect.any(String),
    });
    const list = await t.get(guest, members(vaultId)).expect(200);
    expect(list.body.map((m: { openId: string; role: string }) => [m.openId, m.role])).toEqual([
      [owner.openId, 'vault_owner'],
      [guest.openId, 'vault_editor'],
    ]);
    expect(list.body[0]).toMatchObject({
      username: owner.username,
      firstName: 'Ada',
    });
    const [event] = await t.outbox('vault.collaborator.created.v1');
    expect(event.payload).toMatchObject({
      vault: { id: vaultId },
      actor: { openId: owner.openId },
      collaborator: {
        id: res.body.id,
        openId: guest.openId,
        username: guest.username,
        role: 'vault_editor',
      },
    });

    // the editor works inside its role at once
    await t
      .get(guest, vaultPath(vaultId))
      .expect(200)
      .expect((r) => expect(r.body.userVaultRole).toEqual(['vault_editor']));
    await t.createRecord(guest, vaultId);
    await t.delete(guest, vaultPath(vaultId)).expect(403);
  });

  it('shares by openId; an unknown, inactive or other-tenant account is 404 account_not_found', async () => {
    const { owner, vaultId } = await sharedVault();
    const guest = await account();
    await t
      .post(owner, members(vaultId), {
        openId: guest.openId,
        role: 'vault_viewer',
      })
      .expect(201);

    const other = await account('tenant-b');
    const gone = await account();
    await directory.apply({
      tenantId: gone.tenantId,
      openId: gone.openId,
      accountId: randomUUID(),
      username: gone.username,
      firstName: null,
      lastName: null,
      active: false,
      version: version++,
    });
    const before = await t.snapshot();
    for (const body of [
      { username: 'nobody@example.com', role: 'vault_viewer' },
      { openId: other.openId, role: 'vault_viewer' },
      { username: other.username, role: 'vault_viewer' },
      { username: gone.username, role: 'vault_viewer' },
    ]) {
      const res = await t.post(owner, members(vaultId), body).expect(404);
      expect(res.body).toMatchObject({
        status: 404,
        code: 'account_not_found',
        requestId: expect.any(String),
      });
    }
    expect(await t.snapshot()).toBe(before);
  });

  it('refuses bad bodies with 400: no account, both or neither names, unknown or owner roles', async () => {
    const { owner, vaultId } = await sharedVault();
    const guest = await account();
    for (const body of [
      { role: 'vault_viewer' },
      { username: guest.username, openId: guest.openId, role: 'vault_viewer' },
      { username: guest.username },
      { username: guest.username, role: 'vault_owner' },
      { username: guest.username, role: 'rec_viewer' },
      { username: '', role: 'vault_viewer' },
      { username: 42, role: 'vault_viewer' },
    ]) {
      const res = await t.post(owner, members(vaultId), body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
    }
    const record = await t.createRecord(owner, vaultId);
    const res = await t.post(owner, recordMembers(vaultId, record), {
      username: guest.username,
      role: 'vault_viewer',
    });
    expect(res.status).toBe(400);
  });

  it('a second share of the same account is 409 already_collaborator (the owner too)', async () => {
    const { owner, vaultId } = await sharedVault();
    const guest = await account();
    await share(owner, vaultId, guest, 'vault_viewer');
    const again = await t
      .post(owner, members(vaultId), {
        username: guest.username,
        role: 'vault_editor',
      })
      .expect(409);
    expect(again.body.code).toBe('already_collaborator');
    await t
      .post(owner, members(vaultId), {
        openId: owner.openId,
        role: 'vault_viewer',
      })
      .expect(409);
    expect(
      await t.sql('SELECT role FROM vault_memberships WHERE vault_id = $1 AND open_id = $2', [vaultId, guest.openId]),
    ).toEqual([{ role: 'vault_viewer' }]);
  });

  it("follows the vault's plan: no invitations on free (403 feature_not_in_plan), no guest editors where the role's flag is 0", async () => {
    const free = await sharedVault('');
    const guest = await account();
    const res = await t
      .post(free.owner, members(free.vaultId), {
        username: guest.username,
        role: 'vault_viewer',
      })
      .expect(403);
    expect(res.body).toMatchObject({
      code: 'feature_not_in_plan',
      detail: expect.stringContaining('featureInviteVaultCollaborator'),
    });

    const family = await sharedVault(FAMILY);
    const editor = await t
      .post(family.owner, members(family.vaultId), {
        username: guest.username,
        role: 'vault_editor',
      })
      .expect(403);
    expect(editor.body.detail).toContain('guestVaults.vaultEditorAbility');
    const viewer = await share(family.owner, family.vaultId, guest, 'vault_viewer');
    await t
      .put(family.owner, member(family.vaultId, viewer.id), {
        role: 'vault_editor',
      })
      .expect(403);
    const record = await t.createRecord(family.owner, family.vaultId);
    await t
      .post(family.owner, recordMembers(family.vaultId, record), {
        username: guest.username,
        role: 'rec_editor',
      })
      .expect(403);
  });

  it('only the owner adds, changes and removes; members may leave; nobody else sees the list', async () => {
    const { owner, vaultId } = await sharedVault();
    const editor = await account();
    const viewer = await account();
    const newcomer = await account();
    const stranger = await account();
    const foreign = await account('tenant-b');
    const editorId = (await share(owner, vaultId, editor, 'vault_editor')).id;
    const viewerId = (await share(owner, vaultId, viewer, 'vault_viewer')).id;
    const ownerId = (await t.get(owner, members(vaultId))).body[0].id as string;

    const before = await t.snapshot();
    await t
      .post(editor, members(vaultId), {
        username: newcomer.username,
        role: 'vault_viewer',
      })
      .expect(403);
    await t.put(editor, member(vaultId, viewerId), { role: 'vault_info' }).expect(403);
    await t.delete(editor, member(vaultId, viewerId)).expect(403);
    await t.put(editor, `${vaultPath(vaultId)}/owner`, { collaboratorId: editorId }).expect(403);
    for (const outsider of [stranger, foreign]) {
      await t.get(outsider, members(vaultId)).expect(404);
      await t
        .post(outsider, members(vaultId), {
          username: outsider.username,
          role: 'vault_editor',
        })
        .expect(404);
      await t.delete(outsider, member(vaultId, viewerId)).expect(404);
      await t.put(outsider, member(vaultId, viewerId), { role: 'vault_editor' }).expect(404);
    }
    expect(await t.snapshot()).toBe(before);

    // the owner changes a role, cannot change or remove itself
    const changed = await t.put(owner, member(vaultId, viewerId), { role: 'vault_info' }).expect(200);
    expect(changed.body).toMatchObject({
      id: viewerId,
      role: 'vault_info',
      openId: viewer.openId,
    });
    expect((await t.outbox('vault.collaborator.updated.v1'))[0].payload).toMatchObject({
      previousRole: 'vault_viewer',
      collaborator: { role: 'vault_info' },
    });
    expect((await t.put(owner, member(vaultId, ownerId), { role: 'vault_editor' }).expect(409)).body.code).toBe(
      'owner_cannot_be_removed',
    );
    expect((await t.delete(owner, member(vaultId, ownerId)).expect(409)).body.code).toBe('owner_cannot_be_removed');
    expect((await t.delete(owner, member(vaultId, randomUUID())).expect(404)).body.code).toBe('collaborator_not_found');
    await t.delete(owner, member(vaultId, 'not-an-id')).expect(404);

    // a member leaves on its own; the owner removes another: both lose access on the next request
    await t.delete(viewer, member(vaultId, viewerId)).expect(200);
    await t.get(viewer, vaultPath(vaultId)).expect(404);
    await t.delete(owner, member(vaultId, editorId)).expect(200);
    await t.get(editor, vaultPath(vaultId)).expect(404);
    await t.createRecord(editor, vaultId).catch(() => undefined);
    expect(await t.sql('SELECT count(*)::int AS n FROM records WHERE vault_id = $1', [vaultId])).toEqual([{ n: 0 }]);
    expect((await t.outbox('vault.collaborator.deleted.v1')).map((e) => e.payload.collaborator.openId)).toEqual([
      viewer.openId,
      editor.openId,
    ]);
  });

  it('a member removed from a vault loses the records it created there too', async () => {
    const { owner, vaultId } = await sharedVault();
    const editor = await account();
    const { id } = await share(owner, vaultId, editor, 'vault_editor');
    const own = await t.createRecord(editor, vaultId, { name: 'Lease' });
    await t.delete(owner, member(vaultId, id)).expect(200);
    await t.get(editor, vaultPath(vaultId)).expect(404);
    await t.get(editor, `${vaultPath(vaultId)}/records/record-id/${own}`).expect(404);
    expect(await t.sql('SELECT * FROM record_memberships WHERE open_id = $1', [editor.openId])).toEqual([]);
    const ended = (await t.outbox('vault.collaborator.deleted.v1')).filter(
      (e) => e.payload.collaborator.openId === editor.openId,
    );
    // both ends are written in one transaction, with the same occurredAt: their order is not defined
    const ends = ended.map((e) => [e.payload.collaborator.role, e.payload.record?.id ?? null]);
    expect(ends.sort()).toEqual([
      ['rec_owner', own],
      ['vault_editor', null],
    ]);
    // the record stays in the vault, for the owner
    await t.get(owner, `${vaultPath(vaultId)}/records/record-id/${own}`).expect(200);
  });

  it('transfers the ownership to a collaborator within the plan; the former owner becomes editor', async () => {
    const free = await sharedVault('');
    await t
      .put(free.owner, `${vaultPath(free.vaultId)}/owner`, {
        collaboratorId: randomUUID(),
      })
      .expect(403);

    const { owner, vaultId } = await sharedVault();
    const heir = await account();
    const heirId = (await share(owner, vaultId, heir, 'vault_viewer')).id;
    await t
      .put(owner, `${vaultPath(vaultId)}/owner`, {
        collaboratorId: randomUUID(),
      })
      .expect(404);
    await t.put(owner, `${vaultPath(vaultId)}/owner`, { collaboratorId: 'x' }).expect(400);
    const res = await t.put(owner, `${vaultPath(vaultId)}/owner`, { collaboratorId: heirId }).expect(200);
    expect(res.body.map((m: { openId: string; role: string }) => [m.openId, m.role])).toEqual([
      [heir.openId, 'vault_owner'],
      [owner.openId, 'vault_editor'],
    ]);
    const [transfer] = await t.outbox('vault.vault.transferred.v1');
    expect(transfer.payload).toMatchObject({
      vault: { id: vaultId },
      collaborator: { id: heirId, openId: heir.openId, role: 'vault_owner' },
      previousRole: 'vault_viewer',
    });
    // a transfer by the owner is not a claim (docs/records-api.md, Events)
    expect(transfer.payload).not.toHaveProperty('claimed');
    await t
      .get(heir, vaultPath(vaultId))
      .expect(200)
      .expect((r) => expect(r.body.userVaultRole).toEqual(['vault_owner']));
    await t.put(owner, `${vaultPath(vaultId)}/owner`, { collaboratorId: heirId }).expect(403);
    await t.delete(owner, vaultPath(vaultId)).expect(403);
    expect(await t.sql("SELECT open_id FROM vault_memberships WHERE vault_id = $1 AND role = 'vault_owner'", [vaultId])).toEqual([
      { open_id: heir.openId },
    ]);
  });

  it('refuses a transfer to an account that owns as many vaults as its plans allow (409), changing nothing', async () => {
    const { owner, vaultId } = await sharedVault(FAMILY);
    const heir = await account();
    for (let i = 0; i < 3; i++) await t.createVault(heir);
    const heirId = (await share(owner, vaultId, heir, 'vault_viewer')).id;
    const before = await t.snapshot();
    const res = await t.put(owner, `${vaultPath(vaultId)}/owner`, { collaboratorId: heirId }).expect(409);
    expect(res.body.code).toBe('max_owned_vaults_reached');
    expect(await t.snapshot()).toBe(before);
  });

  it('shares one record: the guest sees that record only, within its role', async () => {
    const { owner, vaultId } = await sharedVault();
    const shared = await t.createRecord(owner, vaultId, { name: 'Passport' });
    const hidden = await t.createRecord(owner, vaultId, { name: 'Will' });
    const guest = await account();
    const res = await t
      .post(owner, recordMembers(vaultId, shared), {
        username: guest.username,
        role: 'rec_viewer',
      })
      .expect(201);
    expect(res.body.role).toBe('rec_viewer');
    const list = await t.get(guest, recordMembers(vaultId, shared)).expect(200);
    expect(list.body.map((m: { role: string }) => m.role)).toEqual(['rec_owner', 'rec_viewer']);
    expect((await t.outbox('vault.collaborator.created.v1')).at(-1)?.payload).toMatchObject({
      record: { id: shared, name: 'Passport' },
    });

    const recordPath = (r: string) => `${vaultPath(vaultId)}/records/record-id/${r}`;
    await t.get(guest, recordPath(shared)).expect(200);
    await t.put(guest, recordPath(shared), recordBody({ name: 'Changed' })).expect(403);
    await t.get(guest, recordPath(hidden)).expect(404);
    await t.get(guest, recordMembers(vaultId, hidden)).expect(404);
    await t
      .post(guest, recordMembers(vaultId, shared), {
        username: owner.username,
        role: 'rec_info',
      })
      .expect(403);

    // a vault editor is no record manager, but the record's owner (its creator) is
    const editor = await account();
    await share(owner, vaultId, editor, 'vault_editor');
    const third = await account();
    await t
      .post(editor, recordMembers(vaultId, shared), {
        username: third.username,
        role: 'rec_info',
      })
      .expect(403);
    const own = await t.createRecord(editor, vaultId, { name: 'Car' });
    await t
      .post(editor, recordMembers(vaultId, own), {
        username: third.username,
        role: 'rec_info',
      })
      .expect(201);
    const ownerRow = (await t.get(editor, recordMembers(vaultId, own))).body[0];
    expect(ownerRow).toMatchObject({
      openId: editor.openId,
      role: 'rec_owner',
    });
    await t.delete(owner, `${recordMembers(vaultId, own)}/collaborator-id/${ownerRow.id}`).expect(409);

    // the guest leaves the record and loses it at once
    await t.delete(guest, `${recordMembers(vaultId, shared)}/collaborator-id/${res.body.id}`).expect(200);
    await t.get(guest, recordPath(shared)).expect(404);
  });

  it('ends the memberships of a deactivated account, keeps its ownerships, ignores stale events', async () => {
    const { owner, vaultId } = await sharedVault();
    const leaver = await account();
    await share(owner, vaultId, leaver, 'vault_viewer');
    const record = await t.createRecord(owner, vaultId);
    await t
      .post(owner, recordMembers(vaultId, record), {
        username: leaver.username,
        role: 'rec_viewer',
      })
      .expect(201);
    const ownVault = await t.createVault(leaver, { name: 'Mine' });
    const [{ version: v }] = await t.sql<{ version: string }>('SELECT version FROM account_directory WHERE open_id = $1', [
      leaver.openId,
    ]);

    const state = {
      tenantId: leaver.tenantId,
      openId: leaver.openId,
      accountId: randomUUID(),
      username: leaver.username,
      firstName: 'Ada',
      lastName: 'Lovelace',
    };
    // an older event arriving late changes nothing
    await directory.apply({ ...state, active: false, version: Number(v) - 1 });
    await t.get(leaver, vaultPath(vaultId)).expect(200);

    await directory.apply({ ...state, active: false, version: version++ });
    await t.get(leaver, vaultPath(vaultId)).expect(404);
    await t.get(leaver, `${vaultPath(vaultId)}/records/record-id/${record}`).expect(404);
    await t.get(leaver, vaultPath(ownVault)).expect(200);
    const ended = (await t.outbox('vault.collaborator.deleted.v1')).filter(
      (e) => e.payload.collaborator.openId === leaver.openId,
    );
    expect(ended.map((e) => e.payload.record?.id ?? null).sort()).toEqual([null, record].sort());
    // applied twice: nothing more ends
    await directory.apply({ ...state, active: false, version: version - 1 });
    expect(
      (await t.outbox('vault.collaborator.deleted.v1')).filter((e) => e.payload.collaborator.openId === leaver.openId),
    ).toHaveLength(2);
  });
});
