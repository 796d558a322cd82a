import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBJECTS } from '@vault/contracts';
import { FsFileStorage } from '../src/capabilities/storage/fs-file-storage';
import { binary, eventually, filesPath, meta, sha256, upload } from './files-support';
import { endpointOf, statusOf, tusUpload } from './resumable-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

/** File versions, blobs and the vault's storage usage (docs/files.md, Versions), on the filesystem store. */
describe('file versions (filesystem storage)', () => {
  let t: RecordsTestApp;
  let dir: string;
  let storage: FsFileStorage;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  const files = () => filesPath(vaultId, recordId);
  const versionsOf = (name: string) => `${files()}/${encodeURIComponent(name)}/versions`;
  const replace = (name: string, bytes: Buffer, c = owner) =>
    upload(t, c, vaultId, recordId, { meta: meta(name, { replace: 'true' }), bytes });
  const blobs = () => t.sql<{ storage_key: string; ref_count: number }>('SELECT * FROM blobs WHERE vault_id = $1', [vaultId]);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'file-versions-'));
    storage = new FsFileStorage(dir);
    // the default plan keeps 3 unpinned versions of a file
    const plans = writePlansFile({ free: { 'vault.fileVersions': '3', 'vault.trashDays': '7' } });
    t = await RecordsTestApp.start('records_versions', {
      VAULT_PLANS_FILE: plans,
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      FILE_PURGE_INTERVAL_MS: '100',
    });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'olga');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps 409 without replace, and with replace makes a new current version of the same file', async () => {
    const first = await upload(t, owner, vaultId, recordId, { meta: meta('lease.pdf') }).expect(201);
    const second = randomBytes(700);
    await upload(t, owner, vaultId, recordId, { meta: meta('lease.pdf'), bytes: second })
      .expect(409)
      .expect((r) => expect(r.body.code).toBe('file_name_taken'));
    const res = await replace('lease.pdf', second).expect(201);
    expect(res.body).toMatchObject({ id: first.body.id, fileSize: 700, __v: 1 });

    const list = await t.get(owner, versionsOf('lease.pdf')).expect(200);
    expect(list.body).toHaveLength(2);
    expect(list.body[0]).toMatchObject({ number: 2, size: 700, sha256: sha256(second), current: true, pinned: false });
    expect(list.body[0].createdBy).toBe('olga');
    expect(list.body[1]).toMatchObject({ number: 1, size: 1000, current: false });
    const current = await binary(t.get(owner, `${files()}/lease.pdf`)).expect(200);
    expect(Buffer.compare(current.body as Buffer, second)).toBe(0);

    const [event] = (await t.outbox(SUBJECTS.fileVersionCreated)).filter((e) => e.vault_id === vaultId);
    expect(event.payload).toMatchObject({ fileName: 'lease.pdf', versionId: list.body[0].id, versionNumber: 2, fileSize: 700 });
    expect(await blobs()).toHaveLength(2);
  });

  it('takes replace in tus Upload-Metadata: the completed upload is a new version, 409 without it', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('tus.pdf') }).expect(201);
    const bytes = randomBytes(4000);
    const base = { ...meta('tus.pdf'), contentType: 'application/pdf' };
    const refused = tusUpload(owner, bytes, { endpoint: endpointOf(t.app, vaultId, recordId), metadata: base });
    expect(statusOf(await refused.done.catch((e: unknown) => e))).toBe(409);
    const last = await tusUpload(owner, bytes, {
      endpoint: endpointOf(t.app, vaultId, recordId),
      metadata: { ...base, replace: '' },
    }).done;
    expect(last.getHeader('Record-File-Url')).toContain('tus.pdf');
    const list = (await t.get(owner, versionsOf('tus.pdf')).expect(200)).body;
    expect(list.map((v: { number: number; size: number }) => [v.number, v.size])).toEqual([
      [2, 4000],
      [1, 1000],
    ]);
    const events = await t.outbox(SUBJECTS.fileVersionCreated);
    expect(events.filter((e) => e.vault_id === vaultId).map((e) => e.payload.versionId)).toEqual([list[0].id]);
  });

  it('downloads one version with ETag, Repr-Digest and Range, and 404s an unknown version', async () => {
    const old = randomBytes(1000);
    await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf'), bytes: old }).expect(201);
    await replace('a.pdf', randomBytes(10)).expect(201);
    const [, v1] = (await t.get(owner, versionsOf('a.pdf')).expect(200)).body;
    const path = `${versionsOf('a.pdf')}/version-id/${v1.id}`;
    const whole = await binary(t.get(owner, path)).expect(200);
    expect(Buffer.compare(whole.body as Buffer, old)).toBe(0);
    expect(whole.headers['etag']).toBe(`"${sha256(old)}"`);
    expect(whole.headers['repr-digest']).toBe(`sha-256=:${Buffer.from(sha256(old), 'hex').toString('base64')}:`);
    expect(whole.headers['content-type']).toBe('application/pdf');
    const part = await binary(t.get(owner, path).set('Range', 'bytes=2-5')).expect(206);
    expect(Buffer.compare(part.body as Buffer, old.subarray(2, 6))).toBe(0);
    await t
      .get(owner, path)
      .set('If-None-Match', `"${sha256(old)}"`)
      .expect(304);
    await t.get(owner, path).set('Range', 'bytes=5000-').expect(416);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await t.get(owner, `${versionsOf('a.pdf')}/version-id/${id}`).expect(404);
      expect(res.body).toMatchObject({ code: 'not_found', requestId: expect.any(String) });
    }
    await t.get(owner, `${files()}/missing.pdf/versions`).expect(404);
  });

  it('restores a version as a new current one without copying bytes', async () => {
    const v1Bytes = randomBytes(1000);
    await upload(t, owner, vaultId, recordId, { meta: meta('b.pdf'), bytes: v1Bytes }).expect(201);
    await replace('b.pdf', randomBytes(20)).expect(201);
    const [, v1] = (await t.get(owner, versionsOf('b.pdf')).expect(200)).body;
    const before = await blobs();
    const res = await t.post(owner, `${versionsOf('b.pdf')}/version-id/${v1.id}/restore`).expect(201);
    expect(res.body).toMatchObject({ number: 3, current: true, sha256: sha256(v1Bytes), restoredFrom: v1.id });
    expect(res.headers['location']).toBe(`/api/v1${versionsOf('b.pdf')}/version-id/${res.body.id}`);
    const after = await blobs();
    expect(after.map((b) => b.storage_key).sort()).toEqual(before.map((b) => b.storage_key).sort());
    expect(after.find((b) => b.ref_count === 2)).toBeDefined();
    const current = await binary(t.get(owner, `${files()}/b.pdf`)).expect(200);
    expect(Buffer.compare(current.body as Buffer, v1Bytes)).toBe(0);
    const events = (await t.outbox(SUBJECTS.fileVersionRestored)).filter((e) => e.vault_id === vaultId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ versionId: res.body.id, restoredFromVersionId: v1.id, versionNumber: 3 }),
    ]);
  });

  it('stores the same bytes once per vault: a second file or a re-upload adds a reference', async () => {
    const bytes = randomBytes(2000);
    await upload(t, owner, vaultId, recordId, { meta: meta('one.pdf'), bytes }).expect(201);
    await upload(t, owner, vaultId, recordId, { meta: meta('two.pdf'), bytes }).expect(201);
    const [blob] = await blobs();
    expect(await blobs()).toHaveLength(1);
    expect(blob.ref_count).toBe(2);
    // the second upload's own copy is removed: only the blob's object stays
    await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
    const keys = await t.sql<{ storage_key: string }>('SELECT storage_key FROM record_files WHERE record_id = $1', [recordId]);
    expect(new Set(keys.map((k) => k.storage_key))).toEqual(new Set([blob.storage_key]));
    // another vault never shares it
    const other = await t.createVault(owner);
    const otherRecord = await t.createRecord(owner, other);
    await upload(t, owner, other, otherRecord, { meta: meta('one.pdf'), bytes }).expect(201);
    expect(await t.sql('SELECT 1 FROM blobs WHERE sha256 = $1', [sha256(bytes)])).toHaveLength(2);
  });

  it('thins unpinned versions beyond vault.fileVersions into the trash; pinned ones stay', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('c.pdf') }).expect(201);
    const [v1] = (await t.get(owner, versionsOf('c.pdf')).expect(200)).body;
    await t.put(owner, `${versionsOf('c.pdf')}/version-id/${v1.id}`, { pinned: true }).expect(200);
    for (let i = 0; i < 4; i++) await replace('c.pdf', randomBytes(100 + i)).expect(201);
    const live = (await t.get(owner, versionsOf('c.pdf')).expect(200)).body as { number: number; pinned: boolean }[];
    // 3 unpinned kept (5, 4, 3), pinned 1 kept, 2 trashed
    expect(live.map((v) => v.number)).toEqual([5, 4, 3, 1]);
    const trashed = await t.sql<{ number: number; state: string; purge_at: Date; deleted_by: string }>(
      `SELECT v.number, v.state, v.purge_at, v.deleted_by FROM file_versions v JOIN record_files f ON f.id = v.file_id
       WHERE f.record_id = $1 AND v.deleted_at IS NOT NULL`,
      [recordId],
    );
    expect(trashed).toEqual([expect.objectContaining({ number: 2, state: 'trashed', deleted_by: 'olga' })]);
    const days = (trashed[0].purge_at.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
    // unpinning makes v1 one unpinned too many: it goes to the trash at once
    const res = await t.put(owner, `${versionsOf('c.pdf')}/version-id/${v1.id}`, { pinned: false }).expect(200);
    expect(res.body.pinned).toBe(false);
    const after = (await t.get(owner, versionsOf('c.pdf')).expect(200)).body as { id: string; number: number }[];
    expect(after.map((v) => v.number)).toEqual([5, 4, 3]);
    await t.put(owner, `${versionsOf('c.pdf')}/version-id/${v1.id}`, { pinned: true }).expect(404);
    await t.put(owner, `${versionsOf('c.pdf')}/version-id/${after[0].id}`, { pinned: 'yes' }).expect(400);
  });

  it('counts versions and trashed versions toward the quota and shows them in the usage', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('d.pdf'), bytes: randomBytes(1000) }).expect(201);
    for (let i = 1; i <= 3; i++) await replace('d.pdf', randomBytes(1000 + i)).expect(201);
    // versions 4 (current), 3, 2 live; 1 trashed
    const usage = await t.get(owner, `/vault/vault-id/${vaultId}/usage`).expect(200);
    expect(usage.body).toEqual({
      limitBytes: 1024 ** 3,
      usedBytes: 4006,
      storedBytes: 4006,
      currentBytes: 1003,
      versionBytes: 2003,
      trashBytes: 1000,
      uploadingBytes: 0,
    });
    // a trashed file's bytes are trash too, still counted
    await upload(t, owner, vaultId, recordId, { meta: meta('gone.pdf'), bytes: randomBytes(500) }).expect(201);
    await t.delete(owner, `${files()}/gone.pdf`).expect(200);
    const after = await t.get(owner, `/vault/vault-id/${vaultId}/usage`).expect(200);
    expect(after.body).toMatchObject({ usedBytes: 4506, currentBytes: 1003, versionBytes: 2003, trashBytes: 1500 });
    const stranger = await t.caller('tenant-a');
    await t.get(stranger, `/vault/vault-id/${vaultId}/usage`).expect(404);
    await t.http().get(`/api/v1/vault/vault-id/${vaultId}/usage`).expect(401);
  });

  it('answers every role as for reading and uploading the file; strangers 404, no token 401', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('e.pdf') }).expect(201);
    const [v1] = (await t.get(owner, versionsOf('e.pdf')).expect(200)).body;
    const who: Record<string, Caller> = {};
    for (const role of ['vault_editor', 'vault_viewer'] as const) {
      who[role] = await t.caller('tenant-a');
      await t.grantVaultRole(vaultId, who[role], role);
    }
    for (const role of ['rec_owner', 'rec_editor', 'rec_viewer'] as const) {
      who[role] = await t.caller('tenant-a');
      await t.grantRecordRole(recordId, who[role], role);
    }
    const stranger = await t.caller('tenant-a');
    const writers = ['vault_editor', 'rec_owner', 'rec_editor'];
    const one = `${versionsOf('e.pdf')}/version-id/${v1.id}`;
    for (const [role, c] of Object.entries(who)) {
      await t.get(c, versionsOf('e.pdf')).expect(200);
      await t.get(c, one).expect(200);
      const write = writers.includes(role) ? 200 : 403;
      await t.put(c, one, { pinned: true }).expect(write);
      await t.post(c, `${one}/restore`).expect(write === 200 ? 201 : 403);
      await replace('e.pdf', randomBytes(50), c).expect(write === 200 ? 201 : 403);
    }
    for (const req of [
      t.get(stranger, versionsOf('e.pdf')),
      t.get(stranger, one),
      t.put(stranger, one, { pinned: true }),
      t.post(stranger, `${one}/restore`),
    ])
      await req.expect(404);
    await t
      .http()
      .get(`/api/v1${versionsOf('e.pdf')}`)
      .expect(401);
    await t.http().post(`/api/v1${one}/restore`).expect(401);
  });

  it('moves with a transferred record the blobs only its files use; the destination keeps one per SHA-256', async () => {
    const own = randomBytes(600);
    const shared = randomBytes(700);
    const known = randomBytes(800);
    await upload(t, owner, vaultId, recordId, { meta: meta('own.pdf'), bytes: own }).expect(201);
    await upload(t, owner, vaultId, recordId, { meta: meta('shared.pdf'), bytes: shared }).expect(201);
    await upload(t, owner, vaultId, recordId, { meta: meta('known.pdf'), bytes: known }).expect(201);
    const staying = await t.createRecord(owner, vaultId);
    await upload(t, owner, vaultId, staying, { meta: meta('copy.pdf'), bytes: shared }).expect(201);
    const dest = await t.createVault(owner);
    const destRecord = await t.createRecord(owner, dest);
    await upload(t, owner, dest, destRecord, { meta: meta('same.pdf'), bytes: known }).expect(201);

    await t
      .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, { destinationVaultId: dest })
      .expect(200);
    const vaultOf = async (b: Buffer) =>
      (
        await t.sql<{ vault_id: string; ref_count: number }>('SELECT vault_id, ref_count FROM blobs WHERE sha256 = $1', [
          sha256(b),
        ])
      )
        .map((r) => [r.vault_id === dest ? 'dest' : 'source', r.ref_count])
        .sort();
    expect(await vaultOf(own)).toEqual([['dest', 1]]);
    expect(await vaultOf(known)).toEqual([['dest', 2]]);
    // shared with a file that stays: the object stays the source vault's, no copy made
    expect(await vaultOf(shared)).toEqual([['source', 2]]);
    // the merged blob's duplicate object is queued and removed; every file still downloads
    await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
    for (const [name, bytes] of [
      ['own.pdf', own],
      ['shared.pdf', shared],
      ['known.pdf', known],
    ] as const) {
      const res = await binary(t.get(owner, `${filesPath(dest, recordId)}/${name}`)).expect(200);
      expect(Buffer.compare(res.body as Buffer, bytes)).toBe(0);
    }
  });

  it('removes the bytes of the last reference only, through the purge queue, whatever step a crash stops', async () => {
    const bytes = randomBytes(3000);
    await upload(t, owner, vaultId, recordId, { meta: meta('f.pdf'), bytes }).expect(201);
    await upload(t, owner, vaultId, recordId, { meta: meta('g.pdf'), bytes }).expect(201);
    const [blob] = await blobs();
    await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
    // purging one file (the row deleted, as the trash purger does) keeps the shared bytes
    await t.sql(`DELETE FROM record_files WHERE record_id = $1 AND file_name = 'f.pdf'`, [recordId]);
    expect((await blobs())[0].ref_count).toBe(1);
    expect(existsSync(storage.objectPath(blob.storage_key))).toBe(true);
    // the last reference: in one transaction the blob goes and its key is queued; a crash
    // right after that commit leaves a queued key, never a row pointing at missing bytes
    await t.sql('BEGIN');
    await t.sql(`DELETE FROM record_files WHERE record_id = $1`, [recordId]);
    expect(await t.sql('SELECT storage_key FROM file_purges')).toEqual([{ storage_key: blob.storage_key }]);
    await t.sql('ROLLBACK');
    // a crash before the commit: nothing happened
    expect(await blobs()).toHaveLength(1);
    expect(await t.sql('SELECT 1 FROM file_purges')).toEqual([]);
    await t.sql(`DELETE FROM record_files WHERE record_id = $1`, [recordId]);
    expect(await blobs()).toEqual([]);
    // the purger removes the bytes, then the queue entry (a crash between them repeats the removal)
    await eventually(() => !existsSync(storage.objectPath(blob.storage_key)));
    await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
    // a crash after the object's removal but before its queue row went: the next purge
    // removes nothing more and clears the row
    await t.sql(`INSERT INTO file_purges (storage_key, purge_after) VALUES ($1, now())`, [blob.storage_key]);
    await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
  });
});
