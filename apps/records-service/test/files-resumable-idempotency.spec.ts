import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import * as tus from 'tus-js-client';
import { digest, endpointOf, tusUpload, uploadsPath } from './resumable-support';
import { eventually, meta, sha256, upload } from './files-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const KiB = 1024;
const KEY = 'Idempotency-Key';
const REPLAYED = 'idempotency-replayed';
/** The tus headers a creation's answer carries and its replays carry again. */
const CREATION_ANSWER = ['location', 'upload-expires', 'tus-resumable'];

interface Creation {
  key?: string;
  meta?: Record<string, string>;
  length?: number;
  /** creation-with-upload: the first bytes, sent with the creation. */
  body?: Buffer;
  headers?: Record<string, string>;
}

describe('resumable uploads: Idempotency-Key on the creation', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let dir: string;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumable-keys-'));
    t = await RecordsTestApp.start('records_resumable_keys', {
      VAULT_PLANS_FILE: writePlansFile({ free: { 'vault.maxUploadMBs': '8', 'vault.maxVaultGBs': '1' } }),
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      TUS_MAX_OPEN_UPLOADS: '3',
    });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A tus creation by hand (Upload-Metadata built from `o.meta`). */
  const create = (c: Caller | undefined, o: Creation = {}) => {
    const m = o.meta ?? meta('scan.bin');
    let req = t
      .http()
      .post(uploadsPath(vaultId, recordId))
      .set('Tus-Resumable', '1.0.0')
      .set('Upload-Length', String(o.length ?? 4 * KiB))
      .set(
        'Upload-Metadata',
        Object.entries(m)
          .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
          .join(','),
      )
      .set(o.headers ?? {});
    if (c) req = req.set('Authorization', `Bearer ${c.token}`);
    if (o.key !== undefined) req = req.set(KEY, o.key);
    return o.body ? req.set('Content-Type', 'application/offset+octet-stream').send(o.body) : req;
  };
  const uploadRows = () =>
    t.sql<{ id: string; upload_offset: string; owner_open_id: string; expires_at: Date }>(
      'SELECT id, upload_offset, owner_open_id, expires_at FROM resumable_uploads WHERE record_id = $1',
      [recordId],
    );
  const keyRows = (key: string) =>
    t.sql<{ state: string; status: number; caller: string }>(
      'SELECT state, status, caller FROM idempotency_keys WHERE key = $1 ORDER BY caller',
      [key],
    );
  const idOf = (location: string) => location.split('/').pop() as string;
  const pick = (headers: Record<string, string>, names: string[]) => Object.fromEntries(names.map((n) => [n, headers[n]]));

  it('replays the creation: same Location and Upload-Expires, the current offset, one upload and one reservation', async () => {
    const key = randomUUID();
    const first = await create(owner, { key }).expect(201);
    expect(first.headers[REPLAYED]).toBeUndefined();
    expect(first.headers['location']).toMatch(new RegExp(`^${uploadsPath(vaultId, recordId)}/[0-9a-f-]{36}$`));
    expect(first.headers['upload-expires']).toEqual(expect.any(String));

    const again = await create(owner, { key }).expect(201);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(pick(again.headers, CREATION_ANSWER)).toEqual(pick(first.headers, CREATION_ANSWER));
    expect(again.headers['upload-offset']).toBe('0');
    // the first answer's Content-Type, none of Express's own for an empty body
    expect([again.headers['content-type'], again.headers['content-length'], again.text]).toEqual([
      first.headers['content-type'],
      '0',
      '',
    ]);
    const rows = await uploadRows();
    expect(rows).toEqual([expect.objectContaining({ id: idOf(first.headers['location']), owner_open_id: owner.openId })]);
    expect(first.headers['upload-expires']).toBe(rows[0].expires_at.toUTCString());
    expect(await keyRows(key)).toEqual([{ state: 'completed', status: 201, caller: owner.openId }]);

    // the upload the key names is the one that completes
    const bytes = randomBytes(4 * KiB);
    const done = await tusUpload(owner, bytes, {
      uploadUrl: `${endpointOf(t.app, vaultId, recordId)}/${idOf(first.headers['location'])}`,
    }).done;
    const files = await t.sql<{ id: string; sha256: string }>('SELECT id, sha256 FROM record_files WHERE record_id = $1', [
      recordId,
    ]);
    expect(files).toEqual([{ id: done.getHeader('Record-File-Id'), sha256: sha256(bytes) }]);
    expect(await uploadRows()).toEqual([]);
  });

  it('creation-with-upload: a repeat answers the offset the upload has reached and appends none of its bytes', async () => {
    const key = randomUUID();
    const bytes = randomBytes(4 * KiB);
    const first = await create(owner, { key, body: bytes.subarray(0, KiB) }).expect(201);
    expect(first.headers['upload-offset']).toBe(String(KiB));
    const location = first.headers['location'];
    await t
      .http()
      .patch(location)
      .set('Tus-Resumable', '1.0.0')
      .set('Authorization', `Bearer ${owner.token}`)
      .set('Upload-Offset', String(KiB))
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes.subarray(KiB, 2 * KiB))
      .expect(204);
    await eventually(async () => (await uploadRows())[0]?.upload_offset === String(2 * KiB), 20_000);

    const again = await create(owner, { key, body: bytes.subarray(0, KiB) }).expect(201);
    expect(again.headers[REPLAYED]).toBe('true');
    expect(again.headers['location']).toBe(location);
    expect(again.headers['upload-offset']).toBe(String(2 * KiB));
    expect(await uploadRows()).toEqual([expect.objectContaining({ id: idOf(location), upload_offset: String(2 * KiB) })]);

    const done = await tusUpload(owner, bytes, { uploadUrl: `${endpointOf(t.app, vaultId, recordId)}/${idOf(location)}` }).done;
    const files = await t.sql<{ id: string; sha256: string }>('SELECT id, sha256 FROM record_files WHERE record_id = $1', [
      recordId,
    ]);
    expect(files).toEqual([{ id: done.getHeader('Record-File-Id'), sha256: sha256(bytes) }]);
  });

  it('tus-js-client retrying a creation-with-upload that completed the file gets its answer again: one record file', async () => {
    const key = randomUUID();
    const bytes = randomBytes(3 * KiB);
    const send = () =>
      new Promise<tus.HttpResponse>((resolve, reject) => {
        new tus.Upload(bytes, {
          endpoint: endpointOf(t.app, vaultId, recordId),
          uploadDataDuringCreation: true,
          chunkSize: bytes.length,
          retryDelays: [],
          storeFingerprintForResuming: false,
          headers: { Authorization: `Bearer ${owner.token}`, [KEY]: key },
          metadata: meta('whole.bin'),
          onSuccess: (p) => resolve(p.lastResponse),
          onError: reject,
        }).start();
      });
    const first = await send();
    const again = await send();
    expect(again.getHeader('Idempotency-Replayed')).toBe('true');
    expect(again.getHeader('Record-File-Id')).toEqual(expect.any(String));
    expect(again.getHeader('Record-File-Id')).toBe(first.getHeader('Record-File-Id'));
    expect(again.getHeader('Upload-Offset')).toBe(String(bytes.length));
    const files = await t.sql<{ id: string }>('SELECT id FROM record_files WHERE record_id = $1', [recordId]);
    expect(files).toEqual([{ id: first.getHeader('Record-File-Id') }]);
    expect(await uploadRows()).toEqual([]);
  });

  it('keeps the creation when the bytes sent with it are refused: the retry gets the upload to continue', async () => {
    const key = randomUUID();
    const bytes = randomBytes(2 * KiB);
    const wrong = { 'Upload-Checksum': `sha256 ${digest('sha256', Buffer.from('not the chunk'))}` };
    const refused = await create(owner, { key, length: bytes.length, body: bytes.subarray(0, KiB), headers: wrong }).expect(460);
    expect(refused.body).toMatchObject({ code: 'chunk_checksum_mismatch' });
    const rows = await uploadRows();
    expect(rows).toEqual([expect.objectContaining({ upload_offset: '0' })]);

    const again = await create(owner, { key, length: bytes.length, body: bytes.subarray(0, KiB) }).expect(201);
    expect(again.headers[REPLAYED]).toBe('true');
    // the answer stored with the upload's row when it was created: what tus answers a creation
    expect(again.headers['location']).toBe(`${uploadsPath(vaultId, recordId)}/${rows[0].id}`);
    expect(again.headers['upload-expires']).toBe(rows[0].expires_at.toUTCString());
    expect(again.headers['tus-resumable']).toBe('1.0.0');
    expect(again.headers['upload-offset']).toBe('0');
    // an empty answer that names no Content-Type is sent with none
    expect([again.headers['content-type'], again.headers['content-length'], again.text]).toEqual([undefined, '0', '']);
    expect(await uploadRows()).toHaveLength(1);
    await tusUpload(owner, bytes, { uploadUrl: `${endpointOf(t.app, vaultId, recordId)}/${rows[0].id}` }).done;
    expect(await t.sql('SELECT 1 FROM record_files WHERE record_id = $1', [recordId])).toHaveLength(1);
  });

  it('the same key for another creation is 422 idempotency_key_reused and creates nothing', async () => {
    const key = randomUUID();
    await create(owner, { key, meta: meta('one.bin') }).expect(201);
    const others: Creation[] = [
      { key, meta: meta('one.bin'), length: 5 * KiB },
      { key, meta: meta('two.bin') },
      { key, meta: meta('one.bin'), headers: { 'Upload-Defer-Length': '1' } },
    ];
    for (const other of others) {
      const res = await create(owner, other).expect(422);
      expect(res.body).toMatchObject({ code: 'idempotency_key_reused', requestId: expect.any(String) });
      expect(res.headers[REPLAYED]).toBeUndefined();
    }
    expect(await uploadRows()).toHaveLength(1);
  });

  it('a repeat while the first creation runs is 409 idempotency_key_in_flight; afterwards it replays', async () => {
    const key = randomUUID();
    // the creation locks the vault row in its transaction: the first request waits there
    const pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    await pg.query('BEGIN');
    await pg.query('SELECT 1 FROM vaults WHERE id = $1 FOR UPDATE', [vaultId]);
    const first = create(owner, { key }).then((r) => r);
    try {
      await eventually(async () => (await keyRows(key))[0]?.state === 'in_flight', 20_000);
      const second = await create(owner, { key }).expect(409);
      expect(second.body).toMatchObject({ code: 'idempotency_key_in_flight' });
      expect(second.headers['retry-after']).toBe('1');
    } finally {
      await pg.query('COMMIT');
      await pg.end();
    }
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await create(owner, { key }).expect(201);
    expect(replay.headers[REPLAYED]).toBe('true');
    expect(replay.headers['location']).toBe(done.headers['location']);
    expect(await uploadRows()).toHaveLength(1);
  });

  it('a key held by a multipart upload whose fingerprint is not known yet is 422 idempotency_key_reused, not 409', async () => {
    const key = randomUUID();
    // the state of a multipart upload under the key while its body is still being read
    await t.sql(
      `INSERT INTO idempotency_keys (tenant_id, caller, key, fingerprint, state, claim, lease_until, created_at, expires_at)
       VALUES ($1, $2, $3, NULL, 'in_flight', $4, now() + interval '1 minute', now(), now() + interval '1 hour')`,
      [owner.tenantId, owner.openId, key, randomUUID()],
    );
    const res = await create(owner, { key }).expect(422);
    expect(res.body).toMatchObject({ code: 'idempotency_key_reused', requestId: expect.any(String) });
    expect(await uploadRows()).toHaveLength(0);
  });

  it("another caller's identical request under the same key is its own creation", async () => {
    const key = randomUUID();
    const editor = await t.caller('tenant-a');
    await t.grantRecordRole(recordId, editor, 'rec_editor');
    const mine = await create(owner, { key }).expect(201);
    const theirs = await create(editor, { key }).expect(201);
    expect(theirs.headers[REPLAYED]).toBeUndefined();
    expect(theirs.headers['location']).not.toBe(mine.headers['location']);
    const rows = await uploadRows();
    expect(rows.map((r) => r.owner_open_id).sort()).toEqual([owner.openId, editor.openId].sort());
    expect(await keyRows(key)).toHaveLength(2);
    // each replays its own
    const again = await create(editor, { key }).expect(201);
    expect(again.headers['location']).toBe(theirs.headers['location']);
  });

  it('refusals: a final 4xx is stored and replayed, 429 releases the key, a malformed key is 400', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('taken.pdf') }).expect(201);
    const key = randomUUID();
    const taken = await create(owner, { key, meta: meta('taken.pdf') }).expect(409);
    expect(taken.body).toMatchObject({ code: 'file_name_taken' });
    const replayed = await create(owner, { key, meta: meta('taken.pdf') }).expect(409);
    expect(replayed.headers[REPLAYED]).toBe('true');
    expect(replayed.body).toEqual(taken.body);
    expect(await keyRows(key)).toEqual([{ state: 'completed', status: 409, caller: owner.openId }]);

    for (const n of [1, 2, 3]) await create(owner, { meta: meta(`${n}.bin`) }).expect(201);
    const busy = randomUUID();
    const full = await create(owner, { key: busy, meta: meta('4.bin') }).expect(429);
    expect(full.body).toMatchObject({ code: 'too_many_requests' });
    expect(await keyRows(busy)).toEqual([]);
    const one = (await uploadRows())[0].id;
    await t
      .http()
      .delete(`${uploadsPath(vaultId, recordId)}/${one}`)
      .set('Tus-Resumable', '1.0.0')
      .set('Authorization', `Bearer ${owner.token}`)
      .expect(204);
    const retried = await create(owner, { key: busy, meta: meta('4.bin') }).expect(201);
    expect(retried.headers[REPLAYED]).toBeUndefined();

    for (const bad of ['with space', 'x'.repeat(256)]) {
      const res = await create(owner, { key: bad, meta: meta('bad.bin') }).expect(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ field: KEY })] });
    }
    expect(await uploadRows()).toHaveLength(3);
  });

  it('answers every role as the creation without a key does; refused callers leave no key', async () => {
    const grants: Array<[string, (c: Caller) => Promise<void>]> = [
      ['vault_editor', (c) => t.grantVaultRole(vaultId, c, 'vault_editor')],
      ['vault_viewer', (c) => t.grantVaultRole(vaultId, c, 'vault_viewer')],
      ['vault_info', (c) => t.grantVaultRole(vaultId, c, 'vault_info')],
      ['rec_editor', (c) => t.grantRecordRole(recordId, c, 'rec_editor')],
      ['rec_viewer', (c) => t.grantRecordRole(recordId, c, 'rec_viewer')],
      ['rec_info', (c) => t.grantRecordRole(recordId, c, 'rec_info')],
      ['stranger', async () => undefined],
    ];
    const expected: Record<string, number> = {
      vault_owner: 201,
      vault_editor: 201,
      rec_editor: 201,
      vault_viewer: 403,
      rec_viewer: 403,
      stranger: 404,
      other_tenant: 404,
    };
    const identities: Array<[string, Caller]> = [['vault_owner', owner]];
    for (const [name, grant] of grants) {
      const c = await t.caller('tenant-a');
      await grant(c);
      identities.push([name, c]);
    }
    identities.push(['other_tenant', await t.caller('tenant-b')]);
    for (const [name, c] of identities) {
      const key = randomUUID();
      const withKey = await create(c, { key, meta: meta(`${name}-key.bin`) });
      const without = await create(c, { meta: meta(`${name}.bin`) });
      expect({ name, status: withKey.status }).toEqual({ name, status: without.status });
      if (expected[name] !== undefined) expect({ name, status: withKey.status }).toEqual({ name, status: expected[name] });
      if (withKey.status !== 201) {
        expect(withKey.body).toMatchObject({ status: withKey.status, requestId: expect.any(String) });
        expect(await keyRows(key)).toEqual([]);
      }
    }
    const anonymous = await create(undefined, { key: randomUUID() }).expect(401);
    expect(anonymous.body).toMatchObject({ status: 401 });
  });

  it('documents the header on the creation route in the OpenAPI document', async () => {
    const doc = (await t.http().get('/api/v1/openapi.json').expect(200)).body;
    const params = doc.paths[uploadsPath('{vaultId}', '{recordId}').replace('/api/v1', '')].post.parameters as Array<{
      name: string;
      in: string;
      description: string;
    }>;
    const header = params.find((p) => p.name === KEY);
    expect(header).toMatchObject({ in: 'header' });
    expect(header?.description).toContain('Upload-Metadata');
  });
});
