import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBJECTS } from '@vault/contracts';
import { filesPath, meta, upload } from './files-support';
import { Caller, RecordsTestApp } from './support';

/**
 * The trash (docs/records-api.md, Trash): a DELETE moves a vault, record or file to the
 * trash with its contract answer unchanged; listings, restore and purge, every role.
 */
describe('trash', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let editor: Caller;
  let viewer: Caller;
  let stranger: Caller;
  let vaultId: string;
  const dir = mkdtempSync(join(tmpdir(), 'trash-files-'));

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_trash', {
      FILE_STORAGE_DIR: dir,
      TRASH_PURGER: 'off',
      WEBHOOK_ALLOWED_TARGETS: '203.0.113.0/24',
    });
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    // fresh callers each time: an account owns 3 vaults at most on the default plan
    [owner, editor, viewer, stranger] = await Promise.all([t.caller(), t.caller(), t.caller(), t.caller()]);
    vaultId = await t.createVault(owner);
    await t.grantVaultRole(vaultId, editor, 'vault_editor');
    await t.grantVaultRole(vaultId, viewer, 'vault_viewer');
  });

  const recordUrl = (id: string) => `/vault/vault-id/${vaultId}/records/record-id/${id}`;
  const fileId = async (recordId: string, name: string) =>
    (await t.sql<{ id: string }>('SELECT id FROM record_files WHERE record_id = $1 AND file_name = $2', [recordId, name]))[0].id;

  it('moves a deleted record with its files and status to the trash, lists it to editors, and restores it whole', async () => {
    const recordId = await t.createRecord(owner, vaultId, { name: 'Passport' });
    await upload(t, owner, vaultId, recordId, { meta: meta('scan.pdf') }).expect(201);
    await t.sql(`UPDATE records SET status = 'CLOSED' WHERE id = $1`, [recordId]);
    await t.delete(owner, recordUrl(recordId)).expect(200);
    await t.get(owner, recordUrl(recordId)).expect(404);
    expect((await t.get(owner, `/vault/vault-id/${vaultId}/records`).expect(200)).body).toEqual([]);

    const list = await t.get(editor, `/vault/vault-id/${vaultId}/trash`).expect(200);
    expect(list.body).toEqual({
      data: [
        {
          id: recordId,
          kind: 'record',
          name: 'Passport',
          recordId,
          vaultId,
          deletedAt: expect.any(String),
          deletedBy: owner.username,
          purgeAt: expect.any(String),
          bytes: 1000,
        },
      ],
      nextCursor: null,
    });
    const { deletedAt, purgeAt } = list.body.data[0];
    expect(new Date(purgeAt).getTime() - new Date(deletedAt).getTime()).toBe(30 * 24 * 3600 * 1000);
    await t.get(viewer, `/vault/vault-id/${vaultId}/trash`).expect(403);
    await t.get(stranger, `/vault/vault-id/${vaultId}/trash`).expect(404);
    expect((await t.outbox(SUBJECTS.recordTrashed)).filter((e) => e.payload.record.id === recordId)).toHaveLength(1);
    expect((await t.outbox(SUBJECTS.recordDeleted)).filter((e) => e.payload.record.id === recordId)).toHaveLength(1);

    await t.post(viewer, `/trash/item-id/${recordId}/restore`).expect(403);
    await t.post(stranger, `/trash/item-id/${recordId}/restore`).expect(404);
    const restored = await t.post(editor, `/trash/item-id/${recordId}/restore`).expect(200);
    expect(restored.body).toEqual({ id: recordId, kind: 'record', name: 'Passport', vaultId, recordId });
    const back = await t.get(owner, recordUrl(recordId)).expect(200);
    expect(back.body.status).toBe('CLOSED');
    expect(back.body.filesHistory.map((f: { fileName: string }) => f.fileName)).toEqual(['scan.pdf']);
    await t.get(owner, `${filesPath(vaultId, recordId)}/scan.pdf`).expect(200);
    expect((await t.get(owner, `/vault/vault-id/${vaultId}/trash`)).body.data).toEqual([]);
    expect((await t.outbox(SUBJECTS.recordRestored)).filter((e) => e.payload.record.id === recordId)).toHaveLength(1);
    await t.post(owner, `/trash/item-id/${recordId}/restore`).expect(404);
  });

  it('restores a file under its name, or 409 name_taken, or under a free name with onConflict=rename', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await upload(t, owner, vaultId, recordId, { meta: meta('will.pdf') }).expect(201);
    const first = await fileId(recordId, 'will.pdf');
    await t.delete(editor, `${filesPath(vaultId, recordId)}/will.pdf`).expect(200);
    const list = await t.get(owner, `/vault/vault-id/${vaultId}/trash`).expect(200);
    expect(list.body.data).toEqual([expect.objectContaining({ id: first, kind: 'file', name: 'will.pdf', recordId })]);
    // the name is free for a new upload while the old file is in the trash
    await upload(t, owner, vaultId, recordId, { meta: meta('will.pdf') }).expect(201);
    const refused = await t.post(owner, `/trash/item-id/${first}/restore`).expect(409);
    expect(refused.body).toMatchObject({ code: 'name_taken', status: 409, requestId: expect.any(String) });
    await t.post(owner, `/trash/item-id/${first}/restore?onConflict=sideways`).expect(400);
    const renamed = await t.post(owner, `/trash/item-id/${first}/restore?onConflict=rename`).expect(200);
    expect(renamed.body).toMatchObject({ id: first, kind: 'file', name: 'will (1).pdf' });
    const names = (await t.get(owner, filesPath(vaultId, recordId)).expect(200)).body[0].files.map(
      (f: { fileName: string }) => f.fileName,
    );
    expect(names.sort()).toEqual(['will (1).pdf', 'will.pdf']);
    const [event] = (await t.outbox(SUBJECTS.fileRestored)).filter((e) => e.payload.record.id === recordId);
    expect(event.payload).toMatchObject({ fileName: 'will (1).pdf', restoredAs: 'will (1).pdf' });
  });

  it('moves a deleted vault to its owner’s trash and brings it back with its records, roles and files', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await upload(t, owner, vaultId, recordId, { meta: meta('deed.pdf') }).expect(201);
    await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);
    await t.get(editor, `/vault/vault-id/${vaultId}`).expect(404);
    expect((await t.get(owner, '/vault').expect(200)).body.map((v: { id: string }) => v.id)).not.toContain(vaultId);
    const mine = await t.get(owner, '/trash').expect(200);
    expect(mine.body.data).toEqual([
      expect.objectContaining({ id: vaultId, kind: 'vault', recordId: null, vaultId, bytes: 1000, deletedBy: owner.username }),
    ]);
    expect((await t.get(editor, '/trash').expect(200)).body).toEqual({ data: [], nextCursor: null });
    // records of a trashed vault are not restored on their own
    await t.delete(owner, `/trash/item-id/${recordId}`).expect(404);
    await t.post(editor, `/trash/item-id/${vaultId}/restore`).expect(403);
    await t.delete(editor, `/trash/item-id/${vaultId}`).expect(403);
    await t.post(stranger, `/trash/item-id/${vaultId}/restore`).expect(404);
    await t.post(owner, `/trash/item-id/${vaultId}/restore`).expect(200);
    expect((await t.get(editor, `/vault/vault-id/${vaultId}`).expect(200)).body.userVaultRole).toEqual(['vault_editor']);
    await t.get(viewer, `${filesPath(vaultId, recordId)}/deed.pdf`).expect(200);
    expect((await t.outbox(SUBJECTS.vaultRestored)).filter((e) => e.vault_id === vaultId)).toHaveLength(1);
  });

  it('purges a vault with everything in it, its webhook subscriptions included', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await t.post(owner, `/vault/vault-id/${vaultId}/webhooks`, { url: 'http://203.0.113.9/in', events: ['*'] }).expect(201);
    await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);
    expect(await t.sql('SELECT id FROM webhooks WHERE vault_id = $1', [vaultId])).toHaveLength(1);
    await t.delete(owner, `/trash/item-id/${vaultId}`).expect(200);
    for (const table of [
      'vaults WHERE id',
      'records WHERE vault_id',
      'vault_memberships WHERE vault_id',
      'webhooks WHERE vault_id',
    ]) {
      expect([table, await t.sql(`SELECT 1 FROM ${table} = $1`, [vaultId])]).toEqual([table, []]);
    }
    expect((await t.outbox(SUBJECTS.vaultPurged)).filter((e) => e.vault_id === vaultId)).toHaveLength(1);
    await t.get(owner, `${recordUrl(recordId)}`).expect(404);
    expect((await t.get(owner, '/trash')).body.data).toEqual([]);
  });

  it('refuses to restore into a trashed vault or record (409 parent_in_trash)', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf') }).expect(201);
    const file = await fileId(recordId, 'a.pdf');
    await t.delete(owner, `${filesPath(vaultId, recordId)}/a.pdf`).expect(200);
    await t.delete(owner, recordUrl(recordId)).expect(200);
    const res = await t.post(owner, `/trash/item-id/${file}/restore`).expect(409);
    expect(res.body).toMatchObject({ code: 'parent_in_trash' });
    await t.post(owner, `/trash/item-id/${recordId}/restore`).expect(200);
    await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);
    await t.delete(owner, recordUrl(recordId)).expect(404);
    expect((await t.post(owner, `/trash/item-id/${file}/restore`).expect(409)).body.code).toBe('parent_in_trash');
  });

  it('purges by hand with the delete role: rows gone, *.purged published; unknown ids and live items 404', async () => {
    const recordId = await t.createRecord(owner, vaultId);
    const recGuest = await t.caller();
    await t.grantRecordRole(recordId, recGuest, 'rec_viewer');
    await t.delete(owner, recordUrl(recordId)).expect(200);
    await t.delete(recGuest, `/trash/item-id/${recordId}`).expect(403);
    await t.delete(viewer, `/trash/item-id/${recordId}`).expect(403);
    await t.delete(stranger, `/trash/item-id/${recordId}`).expect(404);
    await t.delete(owner, `/trash/item-id/00000000-0000-4000-8000-000000000000`).expect(404);
    await t.delete(owner, `/trash/item-id/not-a-uuid`).expect(404);
    await t.post(owner, `/trash/item-id/not-a-uuid/restore`).expect(404);
    await t.delete(owner, `/trash/item-id/${vaultId}`).expect(404);
    await t.http().delete(`/api/v1/trash/item-id/${recordId}`).expect(401);
    await t.delete(editor, `/trash/item-id/${recordId}`).expect(200);
    expect(await t.sql('SELECT id FROM records WHERE id = $1', [recordId])).toEqual([]);
    expect((await t.outbox(SUBJECTS.recordPurged)).filter((e) => e.payload.record.id === recordId)).toHaveLength(1);
    await t.delete(owner, `/trash/item-id/${recordId}`).expect(404);
  });

  it('lets a record owner without a vault role restore and purge its record; pages the listing with a cursor', async () => {
    const recOwner = await t.caller();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = await t.createRecord(owner, vaultId, { name: `r${i}` });
      await t.grantRecordRole(id, recOwner, 'rec_owner');
      await t.delete(owner, recordUrl(id)).expect(200);
      ids.push(id);
    }
    const first = await t.get(owner, `/vault/vault-id/${vaultId}/trash?pageSize=2`).expect(200);
    expect(first.body.data.map((i: { name: string }) => i.name)).toEqual(['r2', 'r1']);
    const next = await t.get(owner, `/vault/vault-id/${vaultId}/trash?pageSize=2&cursor=${first.body.nextCursor}`).expect(200);
    expect(next.body).toEqual({ data: [expect.objectContaining({ name: 'r0' })], nextCursor: null });
    const bad = await t.get(owner, `/vault/vault-id/${vaultId}/trash?cursor=bogus`).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', requestId: expect.any(String) });
    await t.post(recOwner, `/trash/item-id/${ids[0]}/restore`).expect(200);
    await t.delete(recOwner, `/trash/item-id/${ids[1]}`).expect(200);
    await t.get(recOwner, `/vault/vault-id/${vaultId}/trash`).expect(403);
  });
});
