import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { ClientRequest, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SUBJECTS } from '@vault/contracts';
import { listRouteRules } from '@vault/platform/auth';
import request_ from 'supertest';
import * as tus from 'tus-js-client';
import { FsFileStorage } from '../src/capabilities/storage/fs-file-storage';
import { binary, eventually, filesBelow, filesPath, meta, sha256, upload } from './files-support';
import { digest, endpointOf, statusOf, tusUpload, uploadAcrossInstances, uploadsPath } from './resumable-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const KiB = 1024;
const MiB = 1024 * KiB;

describe('resumable uploads, tus (filesystem storage)', () => {
  let t: RecordsTestApp;
  let dir: string;
  let storage: FsFileStorage;
  let env: Record<string, string>;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  const endpoint = () => endpointOf(t.app, vaultId, recordId);
  const uploadRows = () =>
    t.sql<{ id: string; storage_key: string; upload_offset: string }>('SELECT * FROM resumable_uploads WHERE record_id = $1', [
      recordId,
    ]);
  /** Whether anything of the storage key is left in the folder (object or partial file). */
  const leftOf = (key: string) => filesBelow(dir).filter((f) => f.includes(key));
  const tusHeaders = { 'Tus-Resumable': '1.0.0' };
  /** A tus creation by hand (Upload-Metadata built from `m`), for refusals. */
  const create = (c: Caller, m: Record<string, string>, length: number, path = uploadsPath(vaultId, recordId)) =>
    t
      .http()
      .post(path)
      .set(tusHeaders)
      .set('Authorization', `Bearer ${c.token}`)
      .set('Upload-Length', String(length))
      .set(
        'Upload-Metadata',
        Object.entries(m)
          .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
          .join(','),
      );
  const asCaller = (c: Caller, req: import('supertest').Test) => req.set(tusHeaders).set('Authorization', `Bearer ${c.token}`);
  /** The last chunk was refused for the sha256 metadata: no record file, no upload (its reservation released), no bytes. */
  const expectChecksumRefused = async (err: unknown, filesBefore: string[]) => {
    expect(statusOf(err)).toBe(400);
    expect(JSON.parse((err as tus.DetailedError).originalResponse?.getBody() ?? '{}')).toMatchObject({
      code: 'checksum_mismatch',
    });
    expect(await t.sql('SELECT id FROM record_files WHERE record_id = $1', [recordId])).toEqual([]);
    expect(await uploadRows()).toEqual([]);
    expect(await t.sql('SELECT * FROM file_purges WHERE purge_after > now()')).toEqual([]);
    expect(filesBelow(dir).sort()).toEqual(filesBefore.sort());
  };
  /** Another records-service instance on the same database and folder. */
  const bootOnSameData = () => t.bootInstance();
  /** An upload whose first chunk goes to one instance, stopped then, and the rest to a new one. */
  const acrossRestart = (bytes: Buffer, metadata: Record<string, string>) =>
    uploadAcrossInstances(owner, bytes, {
      boot: bootOnSameData,
      vaultId,
      recordId,
      metadata,
      chunkSize: 256 * KiB,
      recordedOffset: async () => Number((await uploadRows())[0]?.upload_offset ?? 0),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumable-'));
    storage = new FsFileStorage(dir);
    env = {
      VAULT_PLANS_FILE: writePlansFile({
        free: { 'vault.maxUploadMBs': '8', 'vault.maxVaultGBs': '1' },
      }),
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      FILE_PURGE_INTERVAL_MS: '100',
      TUS_SWEEP_INTERVAL_MS: '100',
      TUS_MAX_OPEN_UPLOADS: '3',
    };
    t = await RecordsTestApp.start('records_resumable', env);
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

  it('declares record:editor on every tus route and answers OPTIONS with the protocol', async () => {
    const base = '/vault/vault-id/:vaultId/records/record-id/:recordId/uploads';
    const rules = Object.fromEntries(
      listRouteRules(t.app)
        .filter((r) => r.route.includes('/uploads'))
        .map((r) => [r.route.replace(/\/$/, ''), r.rule]),
    );
    expect(rules).toMatchObject({
      [`POST ${base}`]: 'record:editor',
      [`HEAD ${base}/:uploadId`]: 'record:editor',
      [`PATCH ${base}/:uploadId`]: 'record:editor',
      [`DELETE ${base}/:uploadId`]: 'record:editor',
    });
    const res = await t.http().options(uploadsPath(vaultId, recordId)).expect(204);
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect(res.headers['tus-extension']).toBe('creation,creation-with-upload,checksum,termination,expiration');
    expect(res.headers['tus-checksum-algorithm']).toBe('sha1,sha256');
    expect(res.headers['tus-max-size']).toBeUndefined();
  });

  it('tells a caller who may upload its Tus-Max-Size on OPTIONS, and nobody else', async () => {
    const options = (c?: Caller, token = c?.token) => {
      const req = t.http().options(uploadsPath(vaultId, recordId));
      return token ? req.set('Authorization', `Bearer ${token}`) : req;
    };
    // the plan's vault.maxUploadMBs (8 MiB) is smaller than the vault's room (1 GiB)
    expect((await options(owner).expect(204)).headers['tus-max-size']).toBe(String(8 * MiB));
    const editor = await t.caller('tenant-a');
    await t.grantRecordRole(recordId, editor, 'rec_editor');
    expect((await options(editor).expect(204)).headers['tus-max-size']).toBe(String(8 * MiB));
    const viewer = await t.caller('tenant-a');
    await t.grantVaultRole(vaultId, viewer, 'vault_viewer');
    const stranger = await t.caller('tenant-b');
    for (const c of [viewer, stranger]) {
      const res = await options(c).expect(204);
      expect(res.headers['tus-max-size']).toBeUndefined();
      expect(res.headers['tus-version']).toBe('1.0.0');
    }
    // a token that is not valid is refused rather than ignored
    const bad = await options(undefined, 'not-a-token').expect(401);
    expect(bad.headers['www-authenticate']).toContain('invalid_token');
    // the room left wins once it is smaller than the per-upload limit
    await upload(t, owner, vaultId, recordId, { meta: meta('room.pdf') }).expect(201);
    await t.sql(`UPDATE blobs SET size = $2 WHERE vault_id = $1`, [vaultId, 1024 * MiB - 3 * MiB]);
    expect((await options(owner).expect(204)).headers['tus-max-size']).toBe(String(3 * MiB));
  });

  it('uploads in chunks with per-chunk checksums and commits the record file on the last PATCH', async () => {
    const bytes = randomBytes(2 * MiB + 12345);
    const last = await tusUpload(owner, bytes, {
      endpoint: endpoint(),
      chunkSize: 512 * KiB,
      checksum: 'sha256',
      metadata: {
        ...meta('scan.pdf'),
        sha256: sha256(bytes),
        contentType: 'application/pdf',
      },
    }).done;
    const fileId = last.getHeader('Record-File-Id');
    expect(last.getStatus()).toBe(204);
    expect(last.getHeader('Record-File-Url')).toBe(`${filesPath(vaultId, recordId)}/scan.pdf`);

    const [row] = await t.sql<{
      id: string;
      storage_key: string;
      size: string;
      sha256: string;
      media_type: string;
    }>('SELECT * FROM record_files WHERE record_id = $1', [recordId]);
    expect(row).toMatchObject({
      id: fileId,
      size: String(bytes.length),
      sha256: sha256(bytes),
      media_type: 'application/pdf',
    });
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/scan.pdf`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
    // the same traces as a multipart upload, and nothing of the upload left
    const [event] = (await t.outbox(SUBJECTS.fileUploaded)).filter((e) => e.payload.record.id === recordId);
    expect(event.payload).toMatchObject({
      fileName: 'scan.pdf',
      fileSize: bytes.length,
      record: { id: recordId },
    });
    expect(await uploadRows()).toEqual([]);
    expect(await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [row.storage_key])).toEqual([]);
    expect(existsSync(storage.objectPath(row.storage_key))).toBe(true);
  });

  it('takes sha1 chunk checksums and creation-with-upload of a small file in one request', async () => {
    const bytes = randomBytes(3000);
    const res = await create(owner, meta('small.bin'), bytes.length)
      .set('Content-Type', 'application/offset+octet-stream')
      .set('Upload-Checksum', `sha1 ${digest('sha1', bytes)}`)
      .send(bytes)
      .expect(201);
    expect(res.headers['upload-offset']).toBe(String(bytes.length));
    expect(res.headers['record-file-id']).toEqual(expect.any(String));
    await t.get(owner, `${filesPath(vaultId, recordId)}/small.bin`).expect(200);
  });

  it('resumes from the offset HEAD reports after the connection dropped mid-chunk', async () => {
    const bytes = randomBytes(6 * MiB);
    // 1 MiB chunks, cut in the third one: what arrived of a cut chunk may be kept or not, the first two are
    const first = tusUpload(owner, bytes, {
      endpoint: endpoint(),
      metadata: meta('resumed.bin'),
      chunkSize: MiB,
      onProgress: (sent, up) => {
        if (sent > 2.5 * MiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRows())[0]?.upload_offset ?? 0) >= 2 * MiB, 10_000);
    const url = first.upload.url;
    expect(url).toMatch(/\/uploads\/[0-9a-f-]{36}$/);
    const head = await asCaller(owner, t.http().head(new URL(url as string).pathname)).expect(200);
    const offset = Number(head.headers['upload-offset']);
    expect(offset).toBeGreaterThanOrEqual(2 * MiB);
    expect(offset).toBeLessThan(bytes.length);
    expect(head.headers['upload-length']).toBe(String(bytes.length));

    // the cut request may still be finishing on the server (what it received is kept and
    // recorded, then its lock goes): a PATCH sent before that gets 409, and the client asks
    // HEAD again, as tus-js-client does on 409 when it may retry
    const last = await tusUpload(owner, bytes, {
      uploadUrl: url as string,
      chunkSize: MiB,
      retryDelays: [100, 500, 1000],
    }).done;
    expect(last.getHeader('Record-File-Id')).toEqual(expect.any(String));
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/resumed.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });

  it('resumes after records-service restarted mid-upload: the new process hashes the completed file from storage', async () => {
    const bytes = randomBytes(1 * MiB + 7);
    const last = await acrossRestart(bytes, {
      ...meta('restart.bin'),
      sha256: sha256(bytes),
    });
    expect(last.getHeader('Record-File-Id')).toEqual(expect.any(String));
    const [row] = await t.sql<{ sha256: string; size: string }>('SELECT sha256, size FROM record_files WHERE record_id = $1', [
      recordId,
    ]);
    expect(row).toEqual({ sha256: sha256(bytes), size: String(bytes.length) });
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/restart.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
    expect(got.headers['repr-digest']).toBe(`sha-256=:${digest('sha256', bytes)}:`);
  });

  it('refuses an upload continued after a restart whose bytes do not match the sha256 metadata, keeping nothing', async () => {
    const bytes = randomBytes(1 * MiB + 7);
    const before = filesBelow(dir);
    const err = await acrossRestart(bytes, {
      ...meta('restart-bad.bin'),
      sha256: sha256(Buffer.from('other')),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await expectChecksumRefused(err, before);
  });

  it('frees an upload a stalled PATCH holds on another instance: HEAD there answers at once, the upload completes', async () => {
    const bytes = randomBytes(512 * KiB);
    const other = await bootOnSameData();
    const stalled = { req: undefined as ClientRequest | undefined };
    try {
      const created = await create(owner, meta('handover.bin'), bytes.length).expect(201);
      const path = new URL(created.headers['location'] as string, 'http://localhost').pathname;
      // a PATCH on this instance that sends a quarter of its bytes, then nothing: it holds the upload's lock
      stalled.req = request({
        host: '127.0.0.1',
        port: (t.app.getHttpServer().address() as AddressInfo).port,
        method: 'PATCH',
        path,
        headers: {
          ...tusHeaders,
          Authorization: `Bearer ${owner.token}`,
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': String(bytes.length),
        },
      });
      stalled.req.on('error', () => undefined);
      stalled.req.on('response', (r) => r.resume());
      stalled.req.write(bytes.subarray(0, 128 * KiB));
      const advisoryLocks = async () =>
        // pg_locks is the whole server's: only this suite's database counts (other suites may run beside it)
        (
          await t.sql<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
          )
        )[0].n;
      await eventually(async () => (await advisoryLocks()) === 1, 10_000);

      // the other instance asks the holder to let go instead of waiting out TUS_LOCK_TIMEOUT_MS (10 s)
      const started = Date.now();
      const head = await asCaller(owner, request_(other.getHttpServer()).head(path)).expect(200);
      expect(Date.now() - started).toBeLessThan(5000);
      const offset = Number(head.headers['upload-offset']);
      expect(offset).toBeLessThanOrEqual(128 * KiB);

      const last = await tusUpload(owner, bytes, {
        uploadUrl: `${endpointOf(other, vaultId, recordId)}/${path.split('/').pop()}`,
      }).done;
      expect(last.getHeader('Record-File-Id')).toEqual(expect.any(String));
      const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/handover.bin`)).expect(200);
      expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
      expect(await advisoryLocks()).toBe(0);
    } finally {
      stalled.req?.destroy();
      await other.close();
    }
  }, 30_000);

  it('answers 460 to a chunk that does not match its Upload-Checksum and keeps the offset', async () => {
    const bytes = randomBytes(300 * KiB);
    const run = tusUpload(owner, bytes, {
      endpoint: endpoint(),
      chunkSize: 100 * KiB,
      checksum: 'wrong',
      metadata: meta('bad.bin'),
    });
    const err = await run.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(err)).toBe(460);
    const [row] = await uploadRows();
    expect(row.upload_offset).toBe('0');
    const head = await asCaller(owner, t.http().head(new URL(run.upload.url as string).pathname)).expect(200);
    expect(head.headers['upload-offset']).toBe('0');
    // the same chunk with its right checksum is taken
    const last = await tusUpload(owner, bytes, {
      uploadUrl: run.upload.url as string,
      chunkSize: 100 * KiB,
      checksum: 'sha256',
    }).done;
    expect(last.getHeader('Record-File-Id')).toEqual(expect.any(String));
  });

  it('refuses a finished upload whose bytes do not match the sha256 metadata, keeping nothing', async () => {
    const bytes = randomBytes(4000);
    const before = filesBelow(dir);
    const err = await tusUpload(owner, bytes, {
      endpoint: endpoint(),
      chunkSize: 1000,
      metadata: { ...meta('x.bin'), sha256: sha256(Buffer.from('other')) },
    }).done.then(
      () => undefined,
      (e: unknown) => e,
    );
    await expectChecksumRefused(err, before);
  });

  it('reserves the declared length in the vault quota until the upload is terminated', async () => {
    const bytes = randomBytes(100 * KiB);
    const run = tusUpload(owner, bytes, {
      endpoint: endpoint(),
      metadata: meta('held.bin'),
      chunkSize: 50 * KiB,
      onProgress: (sent, up) => {
        if (sent >= 50 * KiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRows())[0]?.upload_offset ?? 0) >= 50 * KiB, 10_000);
    const [row] = await uploadRows();
    expect(await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [row.storage_key])).toHaveLength(1);
    // the reservation counts: a multipart upload sees the room less the declared length
    const usage = await t.sql<{ total: string }>(
      `SELECT COALESCE(SUM(upload_length), 0) AS total FROM resumable_uploads u JOIN records r ON r.id = u.record_id WHERE r.vault_id = $1`,
      [vaultId],
    );
    expect(usage[0].total).toBe(String(bytes.length));

    await tus.Upload.terminate(run.upload.url as string, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    expect(await uploadRows()).toEqual([]);
    await eventually(
      async () => (await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [row.storage_key])).length === 0,
    );
    expect(leftOf(row.storage_key)).toEqual([]);
    await asCaller(owner, t.http().head(new URL(run.upload.url as string).pathname)).expect(404);
  });

  it('counts open uploads against maxVaultGBs: a creation beyond the room left is 413, a multipart upload 409', async () => {
    await create(owner, meta('a.bin'), 8 * MiB).expect(201);
    // fill the vault's 1 GiB with reservations (8 MiB per upload is the per-upload limit): use the SQL the sweeper reads
    await t.sql(`UPDATE resumable_uploads SET upload_length = $1 WHERE owner_open_id = $2`, [1024 * MiB - 4 * KiB, owner.openId]);
    const res = await create(owner, meta('b.bin'), 8 * KiB).expect(413);
    expect(res.body).toMatchObject({
      code: 'upload_exceeds_vault_storage',
      status: 413,
    });
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    await upload(t, owner, vaultId, recordId, {
      bytes: randomBytes(8 * KiB),
      meta: meta('c.bin'),
    }).expect(409);
    await t.sql(`DELETE FROM resumable_uploads WHERE owner_open_id = $1`, [owner.openId]);
  });

  it("moves an open upload's reservation with its record: a transfer into a vault without room for it is 409", async () => {
    const moving = await t.createRecord(owner, vaultId);
    const destination = await t.createVault(owner);
    await create(owner, meta('big.bin'), 8 * MiB, uploadsPath(vaultId, moving)).expect(201);
    await t.sql(`UPDATE resumable_uploads SET upload_length = $1 WHERE record_id = $2`, [1024 * MiB + 1, moving]);
    const res = await t
      .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${moving}/transfer`, { destinationVaultId: destination })
      .expect(409);
    expect(res.body.code).toBe('storage_quota_exceeded');
    await t.sql(`DELETE FROM resumable_uploads WHERE record_id = $1`, [moving]);
    await t
      .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${moving}/transfer`, { destinationVaultId: destination })
      .expect(200);
  });

  it('removes an expired upload: its bytes go and its reservation is released', async () => {
    const bytes = randomBytes(200 * KiB);
    const run = tusUpload(owner, bytes, {
      endpoint: endpoint(),
      metadata: meta('expiring.bin'),
      chunkSize: 100 * KiB,
      onProgress: (sent, up) => {
        if (sent >= 100 * KiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRows())[0]?.upload_offset ?? 0) >= 100 * KiB, 10_000);
    const [row] = await uploadRows();
    expect(leftOf(row.storage_key)).toHaveLength(1);
    await t.sql(
      `UPDATE resumable_uploads SET expires_at = now() - interval '1 second', created_at = now() - interval '2 days' WHERE id = $1`,
      [row.id],
    );
    await eventually(async () => (await uploadRows()).length === 0);
    await eventually(() => leftOf(row.storage_key).length === 0);
    // the bytes go first, the queue entry with the commit that follows
    await eventually(
      async () => (await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [row.storage_key])).length === 0,
    );
    await asCaller(owner, t.http().head(new URL(run.upload.url as string).pathname)).expect(404);
  });

  it("answers the tus server's own refusals with problem bodies too", async () => {
    const res = await t.http().post(uploadsPath(vaultId, recordId)).set('Authorization', `Bearer ${owner.token}`).expect(412);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 412,
      detail: 'Tus-Resumable Required',
      requestId: expect.any(String),
    });
    const bad = await create(owner, meta('a.bin'), 10).set('Upload-Length', 'ten').expect(400);
    expect(bad.body).toMatchObject({
      status: 400,
      requestId: expect.any(String),
    });
  });

  describe('refusals at creation, before any byte', () => {
    it.each([
      ['no fileName', { correlationId: '1', fileType: 'document' }, 'fileName'],
      ['an image without caption', { fileName: 'a.png', correlationId: '1', fileType: 'image' }, 'caption'],
      ['an unknown key', { ...meta('a.bin'), colour: 'blue' }, 'colour'],
      ['a malformed sha256', { ...meta('a.bin'), sha256: 'abc' }, 'sha256'],
    ])('400 for %s', async (_what, m, field) => {
      const res = await create(owner, m as Record<string, string>, 10).expect(400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        errors: expect.arrayContaining([expect.objectContaining({ field })]),
      });
      expect(await uploadRows()).toEqual([]);
    });

    it('403 for a viewer, 404 for a stranger and another tenant', async () => {
      const viewer = await t.caller('tenant-a');
      await t.grantRecordRole(recordId, viewer, 'rec_viewer');
      await create(viewer, meta('a.bin'), 10).expect(403);
      await create(await t.caller('tenant-a'), meta('a.bin'), 10).expect(404);
      await create(await t.caller('tenant-b'), meta('a.bin'), 10).expect(404);
      const editor = await t.caller('tenant-a');
      await t.grantRecordRole(recordId, editor, 'rec_editor');
      await create(editor, meta('a.bin'), 10).expect(201);
    });

    it('409 for a name the record already has, 413 beyond vault.maxUploadMBs', async () => {
      await upload(t, owner, vaultId, recordId, {
        meta: meta('taken.pdf'),
      }).expect(201);
      expect((await create(owner, meta('taken.pdf'), 10).expect(409)).body).toMatchObject({ code: 'file_name_taken' });
      expect((await create(owner, meta('huge.bin'), 8 * MiB + 1).expect(413)).body).toMatchObject({ code: 'payload_too_large' });
      expect(await uploadRows()).toEqual([]);
    });

    it('429 beyond TUS_MAX_OPEN_UPLOADS open uploads of one caller', async () => {
      for (const n of [1, 2, 3]) await create(owner, meta(`${n}.bin`), 10).expect(201);
      expect((await create(owner, meta('4.bin'), 10).expect(429)).body).toMatchObject({ code: 'too_many_requests' });
      await t.sql(`DELETE FROM resumable_uploads WHERE owner_open_id = $1`, [owner.openId]);
    });
  });

  it("does not let another caller, even an editor of the record, touch someone else's upload (404)", async () => {
    const res = await create(owner, meta('mine.bin'), 10).expect(201);
    const path = res.headers['location'] as string;
    expect(path).toMatch(new RegExp(`^${uploadsPath(vaultId, recordId)}/[0-9a-f-]{36}$`));
    const editor = await t.caller('tenant-a');
    await t.grantRecordRole(recordId, editor, 'rec_editor');
    await asCaller(editor, t.http().head(path)).expect(404);
    await asCaller(editor, t.http().patch(path))
      .set('Upload-Offset', '0')
      .set('Content-Type', 'application/offset+octet-stream')
      .send(Buffer.alloc(10))
      .expect(404);
    await asCaller(editor, t.http().delete(path)).expect(404);
    const head = await asCaller(owner, t.http().head(path)).expect(200);
    expect(head.headers['upload-offset']).toBe('0');
  });
});
