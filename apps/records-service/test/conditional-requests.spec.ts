import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesPath, meta, upload } from './files-support';
import { Caller, RecordsTestApp, recordBody } from './support';

/** The resources of records-service with ETags: vaults, records and record-file metadata. */
const STRONG_ETAG = /^"[0-9a-f-]{36}\.\d+"$/;

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

  describe('vaults', () => {
    it('GET answers a strong ETag of the stored version and 304 to a matching If-None-Match', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const res = await t.get(owner, vaultPath(id)).expect(200);
      expect(res.headers.etag).toBe(`"${id}.1"`);
      expect(res.headers.etag).toMatch(STRONG_ETAG);

      for (const header of [res.headers.etag, `"other", ${res.headers.etag}`, `W/${res.headers.etag}`, '*']) {
        const again = await t.get(owner, vaultPath(id)).set('If-None-Match', header).expect(304);
        expect(again.text).toBe('');
        expect(again.headers.etag).toBe(res.headers.etag);
      }
      await t.get(owner, vaultPath(id)).set('If-None-Match', `"${id}.0"`).expect(200);
    });

    it('PUT answers the new version, which a following GET shows; every change increments it', async () => {
      const id = await t.createVault(owner, { name: 'Papers' });
      const before = (await t.get(owner, vaultPath(id))).headers.etag;
      const put = await t.put(owner, vaultPath(id), { name: 'Renamed' }).set('If-Match', before).expect(201);
      expect(put.headers.etag).toBe(`"${id}.2"`);
      const get = await t.get(owner, vaultPath(id)).expect(200);
      expect(get.headers.etag).toBe(put.headers.etag);
      await t.get(owner, vaultPath(id)).set('If-None-Match', before).expect(200);

      // the same values change nothing, so the version stays
      const same = await t.put(owner, vaultPath(id), { name: 'Renamed' }).expect(201);
      expect(same.headers.etag).toBe(put.headers.etag);

      // making another vault the default clears this one's flag: a change of this vault too
      await t.createVault(owner, { default: true });
      expect((await t.get(owner, vaultPath(id))).headers.etag).toBe(`"${id}.3"`);
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
      await t.delete(owner, vaultPath(id)).set('If-Match', `W/"${id}.2"`).expect(412);

      expect(await t.snapshot()).toBe(snapshot);
      await t.delete(owner, vaultPath(id)).set('If-Match', `"x", "${id}.2"`).expect(200);
      expect(await version('vaults', id)).toBeUndefined();
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

  describe('records', () => {
    it('GET answers the record ETag and 304; PUT answers the new one a following GET shows', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const res = await t.get(owner, recordPath(vaultId, id)).expect(200);
      expect(res.headers.etag).toBe(`"${id}.1"`);
      await t.get(owner, recordPath(vaultId, id)).set('If-None-Match', res.headers.etag).expect(304);

      const put = await t.put(owner, recordPath(vaultId, id), recordBody({ name: 'New' })).set('If-Match', res.headers.etag).expect(200);
      expect(put.body).toEqual({ id });
      expect(put.headers.etag).toBe(`"${id}.2"`);
      expect((await t.get(owner, recordPath(vaultId, id))).headers.etag).toBe(put.headers.etag);
      expect(await version('records', id)).toBe(2);
    });

    it('a file change is a new version of the record (its read shows the files), updated_at stays', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      const [{ updated_at: before }] = await t.sql<{ updated_at: Date }>(`SELECT updated_at FROM records WHERE id = $1`, [id]);
      await upload(t, owner, vaultId, id).expect(201);
      expect((await t.get(owner, recordPath(vaultId, id))).headers.etag).toBe(`"${id}.2"`);
      expect(await t.sql(`SELECT updated_at FROM records WHERE id = $1`, [id])).toEqual([{ updated_at: before }]);
      await t.put(owner, recordPath(vaultId, id), recordBody()).set('If-Match', `"${id}.1"`).expect(412);
    });

    it('a stale If-Match on PUT and DELETE is 412 and changes nothing', async () => {
      const vaultId = await t.createVault(owner);
      const id = await t.createRecord(owner, vaultId);
      await t.put(owner, recordPath(vaultId, id), recordBody({ name: 'Second' })).expect(200);
      const snapshot = await t.snapshot();
      const put = await t.put(owner, recordPath(vaultId, id), recordBody({ name: 'Third' })).set('If-Match', `"${id}.1"`).expect(412);
      expect(put.body).toMatchObject({ status: 412, code: 'precondition_failed' });
      await t.delete(owner, recordPath(vaultId, id)).set('If-Match', `"${id}.1"`).expect(412);
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
      expect([put.status, del.status].sort()).toEqual([200, 412]);
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
      expect(await version('record_files', up.body.id, 'revision')).toBeUndefined();
    });
  });

  describe('OpenAPI', () => {
    it('describes the headers and the 304/412/428 answers on each conditional route', async () => {
      const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
      const op = (path: string, method: string) => doc.paths[`/api/v1${path}`][method];
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
      expect(op('/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files', 'post').responses['201'].headers.ETag).toBeDefined();
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
});
