import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { AccountDirectoryService } from '../src/capabilities/directory/account-directory.service';
import { filesPath, meta, upload } from './files-support';
import { Caller, RecordsTestApp, recordBody } from './support';

/** The resources of records-service with ETags: vaults, records and record-file metadata. */
const STRONG_ETAG = /^"[0-9a-f-]{36}\.\d+(\.[a-z_+]+)?"$/;
/** Vault and record views show the caller's roles: their ETags name them after the version. */
const OWNER = 'vault_owner';
const RECORD_OWNER = 'vault_owner+rec_owner';

describe('conditional requests (ETag, If-Match, If-None-Match)', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let storageDir: string;

  beforeAll(async () => {
    storageDir = mkdtempSync(join(tmpdir(), 'records-etag-'));
    t = await RecordsTestApp.start('records_etag', { FILE_STORAGE: 'fs', FILE_STORAGE_DIR: storageDir });
  });
  beforeEach(async () => {
    owner = await t.caller();
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(storageDir, { recursive: true, force: true });
  });

  const vaultPath = (id: string) => `/vault/vault-id/${id}`;
  const recordPath = (vaultId: string, id: string) => `/vault/vault-id/${vaultId}/records/record-id/${id}`;
  const version = async (table: string, id: string, column = 'version') =>
    (await t.sql<{ v: number }>(`SELECT ${column} AS v FROM ${table} WHERE id = $1`, [id]))[0]?.v;
  /** Whether the row was moved to the trash (a DELETE trashes: docs/records-api.md, Trash). */
  const trashed = async (table: string, id: string) =>
    (await t.sql<{ t: boolean }>(`SELECT deleted_at IS NOT NULL AS t FROM ${table} WHERE id = $1`, [id]))[0]?.t;

  describe('vaults', () => {
    it('GET answers a strong ETag of the stored version and 304 to a matching If-None-Match', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const res = await t.get(owner, vaultPath(id)).expect(200);
      expect(res.headers.etag).toBe(`"${id}.1.${OWNER}"`);
      expect(res.headers.etag).toMatch(STRONG_ETAG);

      for (const header of [res.headers.etag, `"other", ${res.headers.etag}`, `W/${res.headers.etag}`, '*']) {
        const again = await t.get(owner, vaultPath(id)).set('If-None-Match', header).expect(304);
        expect(again.text).toBe('');
        expect(again.headers.etag).toBe(res.headers.etag);
      }
      await t.get(owner, vaultPath(id)).set('If-None-Match', `"${id}.0.${OWNER}"`).expect(200);
    });

    it('PUT answers the new version, which a following GET shows; every change increments it', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const before = (await t.get(owner, vaultPath(id))).headers.etag;
      const put = await t.put(owner, vaultPath(id), { name: 'Renamed' }).set('If-Match', before).expect(201);
      expect(put.headers.etag).toBe(`"${id}.2.${OWNER}"`);
      const get = await t.get(owner, vaultPath(id)).expect(200);
      expect(get.headers.etag).toBe(put.headers.etag);
      await t.get(owner, vaultPath(id)).set('If-None-Match', before).expect(200);

      // the same values change nothing, so the version stays
      const same = await t.put(owner, vaultPath(id), { name: 'Renamed' }).expect(201);
      expect(same.headers.etag).toBe(put.headers.etag);

      // making another vault the default clears this one's flag: a change of this vault too
      await t.createVault(owner, { default: true });
      expect((await t.get(owner, vaultPath(id))).headers.etag).toBe(`"${id}.3.${OWNER}"`);
    });

    it('a stale If-Match on PUT and DELETE is 412 precondition_failed and changes nothing', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const stale = (await t.get(owner, vaultPath(id))).headers.etag;
      await t.put(owner, vaultPath(id), { name: 'Second' }).expect(201);
      const snapshot = await t.snapshot();

      const put = await t.put(owner, vaultPath(id), { name: 'Third' }).set('If-Match', stale).expect(412);
      expect(put.body).toMatchObject({ status: 412, code: 'precondition_failed' });
      expect(put.headers['content-type']).toMatch(/^application\/problem\+json/);
      const del = await t.delete(owner, vaultPath(id)).set('If-Match', stale).expect(412);
      expect(del.body.code).toBe('precondition_failed');
      // a weak tag never matches If-Match
      await t.delete(owner, vaultPath(id)).set('If-Match', `W/"${id}.2.${OWNER}"`).expect(412);

      expect(await t.snapshot()).toBe(snapshot);
      await t.delete(owner, vaultPath(id)).set('If-Match', `"x", "${id}.2.${OWNER}"`).expect(200);
      expect(await trashed('vaults', id)).toBe(true);
    });

    it('two writers racing with the same ETag: exactly one wins, the others get 412', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const etag = (await t.get(owner, vaultPath(id))).headers.etag;
      const names = ['A', 'B', 'C', 'D'];
      const answers = await Promise.all(names.map((name) => t.put(owner, vaultPath(id), { name }).set('If-Match', etag)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([201, 412, 412, 412]);
      const winner = names[answers.findIndex((a) => a.status === 201)];
      expect(await t.sql(`SELECT name, version FROM vaults WHERE id = $1`, [id])).toEqual([{ name: winner, version: 2 }]);
      expect(await t.outbox('vault.vault.updated.v1').then((rows) => rows.filter((r) => r.vault_id === id))).toHaveLength(1);
    });
  });

  describe("views showing the caller's roles", () => {
    let accountVersion = 1;
    /** A caller the account directory knows, so that an owner can share with it by username. */
    const account = async (): Promise<Caller> => {
      const c = await t.caller('tenant-a', `${randomUUID().slice(0, 8)}@example.com`);
      const directory = t.app.get(AccountDirectoryService);
      await directory.apply({
        tenantId: c.tenantId,
        openId: c.openId,
        accountId: randomUUID(),
        username: c.username,
        firstName: 'G',
        lastName: 'H',
        active: true,
        version: accountVersion++,
      });
      return c;
    };
    const members = (v: string) => `${vaultPath(v)}/collaborators`;
    /** A premium vault of `owner` shared with a new account as `role`; the collaborator's id. */
    const shared = async (role: string) => {
      const vaultId = await t.createVault(owner, { name: 'Shared', licenseKey: 'PREMIUM-DEMO-2026' });
      const guest = await account();
      const { id } = (await t.post(owner, members(vaultId), { username: guest.username, role }).expect(201)).body as {
        id: string;
      };
      return { vaultId, guest, collaborator: `${members(vaultId)}/collaborator-id/${id}` };
    };

    it("a vault GET after the caller's role changed answers 200 with the new userVaultRole, never 304", async () => {
      const { vaultId, guest, collaborator } = await shared('vault_editor');
      const before = await t.get(guest, vaultPath(vaultId)).expect(200);
      expect(before.body.userVaultRole).toEqual(['vault_editor']);
      expect(before.headers.etag).toBe(`"${vaultId}.1.vault_editor"`);
      expect(before.headers.vary).toMatch(/authorization/i);
      await t.get(guest, vaultPath(vaultId)).set('If-None-Match', before.headers.etag).expect(304);

      await t.put(owner, collaborator, { role: 'vault_viewer' }).expect(200);
      // the vault row did not change (same version), the guest's view of it did
      expect(await version('vaults', vaultId)).toBe(1);
      const after = await t.get(guest, vaultPath(vaultId)).set('If-None-Match', before.headers.etag).expect(200);
      expect(after.body.userVaultRole).toEqual(['vault_viewer']);
      expect(after.headers.etag).toBe(`"${vaultId}.1.vault_viewer"`);
      await t.get(guest, vaultPath(vaultId)).set('If-None-Match', after.headers.etag).expect(304);
    });

    it("another caller holding the owner's ETag gets its own view; If-Match names the caller's view", async () => {
      const { vaultId, guest, collaborator } = await shared('vault_viewer');
      const ownerTag = (await t.get(owner, vaultPath(vaultId)).expect(200)).headers.etag;
      const res = await t.get(guest, vaultPath(vaultId)).set('If-None-Match', ownerTag).expect(200);
      expect(res.body.userVaultRole).toEqual(['vault_viewer']);
      expect(res.headers.etag).not.toBe(ownerTag);

      // promoted to editor: a write naming the view it held as viewer is stale, the current view's tag passes
      await t.put(owner, collaborator, { role: 'vault_editor' }).expect(200);
      await t.put(guest, vaultPath(vaultId), { name: 'Edited' }).set('If-Match', res.headers.etag).expect(412);
      const current = (await t.get(guest, vaultPath(vaultId))).headers.etag;
      const put = await t.put(guest, vaultPath(vaultId), { name: 'Edited' }).set('If-Match', current).expect(201);
      expect(put.headers.etag).toBe(`"${vaultId}.2.vault_editor"`);
    });

    it("a record GET: a record guest's ETag names its record role and changes with it", async () => {
      const vaultId = await t.createVault(owner, { licenseKey: 'PREMIUM-DEMO-2026' });
      const id = await t.createRecord(owner, vaultId);
      const guest = await account();
      const recordMembers = `${recordPath(vaultId, id)}/collaborators`;
      const added = (await t.post(owner, recordMembers, { username: guest.username, role: 'rec_editor' }).expect(201)).body as {
        id: string;
      };
      const before = await t.get(guest, recordPath(vaultId, id)).expect(200);
      expect(before.body).toMatchObject({ userVaultRole: [], userRecordRole: ['rec_editor'] });
      expect(before.headers.etag).toBe(`"${id}.1.rec_editor"`);
      await t.put(owner, `${recordMembers}/collaborator-id/${added.id}`, { role: 'rec_viewer' }).expect(200);
      const after = await t.get(guest, recordPath(vaultId, id)).set('If-None-Match', before.headers.etag).expect(200);
      expect(after.body.userRecordRole).toEqual(['rec_viewer']);
      expect(after.headers.etag).toBe(`"${id}.1.rec_viewer"`);
    });
  });

  describe('records', () => {
    it('GET answers the record ETag and 304; PUT answers the new one a following GET shows', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const res = await t.get(owner, recordPath(vaultId, id)).expect(200);
      expect(res.headers.etag).toBe(`"${id}.1.${RECORD_OWNER}"`);
      await t.get(owner, recordPath(vaultId, id)).set('If-None-Match', res.headers.etag).expect(304);

      const put = await t
        .put(owner, recordPath(vaultId, id), recordBody({ name: 'New' }))
        .set('If-Match', res.headers.etag)
        .expect(200);
      expect(put.body).toEqual({ id });
      expect(put.headers.etag).toBe(`"${id}.2.${RECORD_OWNER}"`);
      expect((await t.get(owner, recordPath(vaultId, id))).headers.etag).toBe(put.headers.etag);
      expect(await version('records', id)).toBe(2);
    });

    it('a file change is a new version of the record (its read shows the files), updated_at stays', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const [{ updated_at: before }] = await t.sql<{ updated_at: Date }>(`SELECT updated_at FROM records WHERE id = $1`, [id]);
      await upload(t, owner, vaultId, id).expect(201);
      expect((await t.get(owner, recordPath(vaultId, id))).headers.etag).toBe(`"${id}.2.${RECORD_OWNER}"`);
      expect(await t.sql(`SELECT updated_at FROM records WHERE id = $1`, [id])).toEqual([{ updated_at: before }]);
      await t.put(owner, recordPath(vaultId, id), recordBody()).set('If-Match', `"${id}.1.${RECORD_OWNER}"`).expect(412);
    });

    it('a stale If-Match on PUT and DELETE is 412 and changes nothing', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      await t.put(owner, recordPath(vaultId, id), recordBody({ name: 'Second' })).expect(200);
      const snapshot = await t.snapshot();
      const put = await t
        .put(owner, recordPath(vaultId, id), recordBody({ name: 'Third' }))
        .set('If-Match', `"${id}.1.${RECORD_OWNER}"`)
        .expect(412);
      expect(put.body).toMatchObject({ status: 412, code: 'precondition_failed' });
      await t.delete(owner, recordPath(vaultId, id)).set('If-Match', `"${id}.1.${RECORD_OWNER}"`).expect(412);
      expect(await t.snapshot()).toBe(snapshot);

      await t.delete(owner, recordPath(vaultId, id)).set('If-Match', '*').expect(200);
      expect(await t.sql(`SELECT status, version FROM records WHERE id = $1`, [id])).toEqual([{ status: 'DELETED', version: 3 }]);
    });

    it('two writers racing with the same ETag: exactly one wins, the other gets 412', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const etag = (await t.get(owner, recordPath(vaultId, id))).headers.etag;
      const [a, b] = await Promise.all(
        ['A', 'B'].map((name) => t.put(owner, recordPath(vaultId, id), recordBody({ name })).set('If-Match', etag)),
      );
      expect([a.status, b.status].sort()).toEqual([200, 412]);
      const winner = a.status === 200 ? 'A' : 'B';
      expect(await t.sql(`SELECT name, version FROM records WHERE id = $1`, [id])).toEqual([{ name: winner, version: 2 }]);
    });

    it('a PUT racing a DELETE with the same ETag: one wins, the other gets 412', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const etag = (await t.get(owner, recordPath(vaultId, id))).headers.etag;
      const [put, del] = await Promise.all([
        t.put(owner, recordPath(vaultId, id), recordBody({ name: 'Edited' })).set('If-Match', etag),
        t.delete(owner, recordPath(vaultId, id)).set('If-Match', etag),
      ]);
      // one wins; the loser is 412, or 404 for a PUT whose record was already deleted when it was looked up
      expect([put.status, del.status]).toContain(200);
      expect(put.status === 200 ? [412] : [412, 404]).toContain(put.status === 200 ? del.status : put.status);
      const [row] = await t.sql<{ name: string; status: string }>(`SELECT name, status FROM records WHERE id = $1`, [id]);
      expect(row).toEqual(put.status === 200 ? { name: 'Edited', status: 'ACTIVE' } : { name: 'My passport', status: 'DELETED' });
    });
  });

  describe('record-file metadata', () => {
    it('upload and PUT answer the metadata ETag; a stale one is 412 on PUT and DELETE; racing writers: one wins', async () => {
      const vaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const up = await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf') }).expect(201);
      expect(up.headers.etag).toBe(`"${up.body.id}.0"`);
      const path = `${filesPath(vaultId, recordId)}/a.pdf`;
      const body = (caption: string) => ({ correlationId: '260101120000', caption });

      const [x, y] = await Promise.all(['x', 'y'].map((c) => t.put(owner, path, body(c)).set('If-Match', up.headers.etag)));
      expect([x.status, y.status].sort()).toEqual([200, 412]);
      const won = x.status === 200 ? x : y;
      expect(won.headers.etag).toBe(`"${up.body.id}.1"`);
      expect(won.body.__v).toBe(1);

      const snapshot = await t.sql(`SELECT * FROM record_files WHERE id = $1`, [up.body.id]);
      const stale = await t.put(owner, path, body('z')).set('If-Match', up.headers.etag).expect(412);
      expect(stale.body.code).toBe('precondition_failed');
      await t.delete(owner, path).set('If-Match', up.headers.etag).expect(412);
      expect(await t.sql(`SELECT * FROM record_files WHERE id = $1`, [up.body.id])).toEqual(snapshot);

      await t.delete(owner, path).set('If-Match', won.headers.etag).expect(200);
      expect(await trashed('record_files', up.body.id)).toBe(true);
    });
  });

  describe('OpenAPI', () => {
    it('describes the headers and the 304/412/428 answers on each conditional route', async () => {
      const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
      const op = (path: string, method: string) => doc.paths[path][method];
      const headerNames = (o: { parameters: { in: string; name: string }[] }) =>
        o.parameters.filter((p) => p.in === 'header').map((p) => p.name);
      for (const path of ['/vault/vault-id/{vaultId}', '/vault/vault-id/{vaultId}/records/record-id/{recordId}']) {
        expect(headerNames(op(path, 'get'))).toEqual(expect.arrayContaining(['If-None-Match', 'If-Match']));
        expect(op(path, 'get').responses['304'].headers.ETag).toBeDefined();
        expect(op(path, 'get').responses['200'].headers.ETag).toBeDefined();
        for (const method of ['put', 'delete']) {
          expect(headerNames(op(path, method))).toContain('If-Match');
          expect(Object.keys(op(path, method).responses)).toEqual(expect.arrayContaining(['412', '428']));
        }
      }
      expect(op('/vault/vault-id/{vaultId}', 'put').responses['201'].headers.ETag).toBeDefined();
      const file = '/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files/{name}';
      expect(op(file, 'put').responses['200'].headers.ETag).toBeDefined();
      expect(Object.keys(op(file, 'delete').responses)).toEqual(expect.arrayContaining(['412', '428']));
      expect(
        op('/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files', 'post').responses['201'].headers.ETag,
      ).toBeDefined();
    });
  });
});

describe('REQUIRE_IF_MATCH=true', () => {
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_etag_required', { REQUIRE_IF_MATCH: 'true' });
    owner = await t.caller();
  });
  afterAll(async () => {
    await t?.stop();
    delete process.env.REQUIRE_IF_MATCH;
  });

  it('answers 428 precondition_required to PUT and DELETE without If-Match and changes nothing', async () => {
    const vaultId = await t.createVault(owner);
    const recordId = await t.createRecord(owner, vaultId);
    const snapshot = await t.snapshot();
    for (const req of [
      t.put(owner, `/vault/vault-id/${vaultId}`, { name: 'x' }),
      t.delete(owner, `/vault/vault-id/${vaultId}`),
      t.put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody()),
      t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`),
      t.put(owner, `${filesPath(vaultId, recordId)}/a.pdf`, { correlationId: 'c' }),
      t.delete(owner, `${filesPath(vaultId, recordId)}/a.pdf`),
    ]) {
      const res = await req.expect(428);
      expect(res.body).toMatchObject({ status: 428, code: 'precondition_required', title: 'Precondition Required' });
    }
    expect(await t.snapshot()).toBe(snapshot);

    // with If-Match the writes go through; reads and creates need none
    const etag = (await t.get(owner, `/vault/vault-id/${vaultId}`).expect(200)).headers.etag;
    await t.put(owner, `/vault/vault-id/${vaultId}`, { name: 'x' }).set('If-Match', etag).expect(201);
    await t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).set('If-Match', '*').expect(200);
  });

  it('refuses by role first, then 428 before the body is read', async () => {
    const vaultId = await t.createVault(owner);
    const recordId = await t.createRecord(owner, vaultId);
    const path = `/vault/vault-id/${vaultId}/records/record-id/${recordId}`;
    // a caller without a role on the vault learns nothing about its preconditions
    const stranger = await t.caller();
    await t.put(stranger, path, recordBody()).expect(404);
    // a body that is not JSON is never read without If-Match: 428, not 400
    const unread = await t
      .http()
      .put(`/api/v1${path}`)
      .set('Authorization', `Bearer ${owner.token}`)
      .set('Content-Type', 'application/json')
      .send('{"name":');
    expect(unread.status).toBe(428);
    expect(unread.body).toMatchObject({ code: 'precondition_required' });
    // with If-Match the same body is read and refused
    await t
      .http()
      .put(`/api/v1${path}`)
      .set('Authorization', `Bearer ${owner.token}`)
      .set('If-Match', '*')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400);
  });
});
