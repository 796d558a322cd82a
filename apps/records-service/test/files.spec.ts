import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { ClientRequest, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBJECTS } from '@vault/contracts';
import { listRouteRules } from '@vault/platform/auth';
import { FsFileStorage } from '../src/capabilities/storage/fs-file-storage';
import { binary, eventually, filesBelow, filesPath, meta, postFiles, sha256, upload } from './files-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const MiB = 1024 * 1024;

/** Boundary and framing of the hand-streamed multipart bodies of `streamUpload`. */
const RAW_BOUNDARY = 'rawboundary';
const RAW_FILE_HEAD = `--${RAW_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`;
const RAW_TAIL = `\r\n--${RAW_BOUNDARY}--\r\n`;

/** An upload whose body the test writes itself (to pause or abort it mid-stream); metadata in the query. */
function streamUpload(
  t: RecordsTestApp,
  c: Caller,
  uploadPath: string,
  m: Record<string, string>,
  length: number,
): ClientRequest {
  const addr = t.app.getHttpServer().address() as AddressInfo;
  return httpRequest({
    host: '127.0.0.1',
    port: addr.port,
    method: 'POST',
    path: `/api/v1${uploadPath}?${new URLSearchParams(m).toString()}`,
    headers: {
      Authorization: `Bearer ${c.token}`,
      'Content-Type': `multipart/form-data; boundary=${RAW_BOUNDARY}`,
      'Content-Length': String(length),
    },
  });
}

describe('record files (filesystem storage)', () => {
  let t: RecordsTestApp;
  let dir: string;
  let storage: FsFileStorage;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  const path = (v = vaultId, r = recordId) => filesPath(v, r);
  const rowsOf = (r = recordId) =>
    t.sql<{ id: string; storage_key: string }>('SELECT * FROM record_files WHERE record_id = $1', [r]);
  /** Storage folder, metadata rows and purge queue, to prove a refused upload left nothing. */
  const trace = async () =>
    JSON.stringify({
      files: filesBelow(dir).sort(),
      rows: await t.sql('SELECT id FROM record_files ORDER BY id'),
      purges: await t.sql('SELECT storage_key FROM file_purges ORDER BY 1'),
      outbox: await t.sql('SELECT id FROM outbox_events ORDER BY id'),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'record-files-'));
    storage = new FsFileStorage(dir);
    const plans = writePlansFile({
      free: { 'vault.maxUploadMBs': '1', 'vault.maxVaultGBs': '1' },
      premium: { 'vault.maxUploadMBs': '100', 'vault.maxVaultGBs': '0' },
    });
    t = await RecordsTestApp.start('records_files', {
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

  it('declares the documented rule on every file route', () => {
    const base = '/vault/vault-id/:vaultId/records/record-id/:recordId/record-files';
    const rules = Object.fromEntries(
      listRouteRules(t.app)
        .filter((r) => r.route.includes('/record-files'))
        .map((r) => [r.route.replace(/\/$/, ''), r.rule]),
    );
    expect(rules).toEqual({
      [`POST ${base}`]: 'record:editor',
      [`GET ${base}`]: 'record:viewer',
      [`GET ${base}/:name`]: 'record:viewer',
      [`PUT ${base}/:name`]: 'record:editor',
      [`DELETE ${base}/:name`]: 'record:editor',
      [`GET ${base}/:name/versions`]: 'record:viewer',
      [`GET ${base}/:name/versions/version-id/:versionId`]: 'record:viewer',
      [`POST ${base}/:name/versions/version-id/:versionId/restore`]: 'record:editor',
      [`PUT ${base}/:name/versions/version-id/:versionId`]: 'record:editor',
      [`GET ${base}/:name/retention`]: 'record:viewer',
      [`GET ${base}/:name/text`]: 'record:viewer',
      [`GET ${base}/:name/age`]: 'vault:owner',
    });
  });

  describe('POST upload', () => {
    it('stores the bytes under a generated key and answers 201 with the record file', async () => {
      const bytes = randomBytes(5000);
      const res = await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('../passport scan.pdf'.replace('../', ''), {
          uploadDetail: 'front page',
          fileExtension: '.pdf',
        }),
      }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        _id: res.body.id,
        fileName: 'passport scan.pdf',
        correlationId: '260101120000',
        uploadDetail: 'front page',
        caption: null,
        uploadTitle: 'Scans',
        fileType: 'document',
        fileExtension: '.pdf',
        cloaudStorage: false,
        active: true,
        fileUrl: `${path()}/passport%20scan.pdf`,
        uploader: 'olga',
        fileSize: 5000,
        recordDetail: recordId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        __v: 0,
      });
      const [row] = await t.sql<{ storage_key: string; sha256: string; media_type: string }>(
        'SELECT * FROM record_files WHERE id = $1',
        [res.body.id],
      );
      expect(row.storage_key).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.sha256).toBe(sha256(bytes));
      expect(row.media_type).toBe('application/pdf');
      expect(filesBelow(dir)).toContain(storage.objectPath(row.storage_key));
      expect(filesBelow(join(dir, 'tmp'))).toEqual([]);
      expect(await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [row.storage_key])).toEqual([]);
      const [event] = (await t.outbox(SUBJECTS.fileUploaded)).filter((e) => e.payload.record.id === recordId);
      expect(event.payload).toMatchObject({
        tenantId: 'tenant-a',
        actor: { openId: owner.openId, username: 'olga' },
        vault: { id: vaultId },
        record: { id: recordId, name: 'My passport' },
        recordTypeName: 'identityDocs',
        fileName: 'passport scan.pdf',
        correlationId: '260101120000',
        fileType: 'document',
        fileSize: 5000,
      });
    });

    it('accepts the metadata as multipart fields before the file part', async () => {
      const res = await upload(t, owner, vaultId, recordId, {
        asFields: true,
        meta: meta('photo.jpg', { fileType: 'image', caption: 'Front' }),
      }).expect(201);
      expect(res.body).toMatchObject({ fileName: 'photo.jpg', fileType: 'image', caption: 'Front' });
    });

    it('refuses a field given differently in the query and the form', async () => {
      const res = await postFiles(t, owner, vaultId, recordId)
        .query(meta('a.pdf'))
        .field('fileName', 'b.pdf')
        .attach('file', Buffer.from('x'), 'a.pdf')
        .expect(400);
      expect(res.body.errors).toEqual([{ field: 'fileName', message: expect.stringContaining('differs') }]);
    });

    it.each([
      ['an unknown field', 'owner', 'me'],
      ['a metadata field', 'caption', 'late caption'],
    ])('refuses %s sent after the file part with 400 naming it, and keeps nothing', async (_label, field, value) => {
      const before = await trace();
      const res = await postFiles(t, owner, vaultId, recordId)
        .field('fileName', 'late.pdf')
        .field('correlationId', '260101120000')
        .field('fileType', 'document')
        .attach('file', randomBytes(1000), 'late.pdf')
        .field(field, value)
        .expect(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(res.body.errors).toEqual([{ field, message: expect.stringContaining('after the file part') }]);
      expect(await trace()).toBe(before);
      await t.get(owner, `${path()}/late.pdf`).expect(404);
    });

    it('accepts a matching x-checksum-sha256 in hex or base64', async () => {
      const bytes = randomBytes(300);
      await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('hex.bin'),
        headers: { 'x-checksum-sha256': sha256(bytes) },
      }).expect(201);
      await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('b64.bin'),
        headers: { 'x-checksum-sha256': Buffer.from(sha256(bytes), 'hex').toString('base64') },
      }).expect(201);
    });

    it.each([
      ['no fileType', { fileName: 'a.pdf', correlationId: '1' }, 'fileType'],
      ['an unknown fileType', meta('a.pdf', { fileType: 'video' }), 'fileType'],
      ['an image without caption', meta('a.jpg', { fileType: 'image' }), 'caption'],
      ['no correlationId', { fileName: 'a.pdf', fileType: 'document' }, 'correlationId'],
      ['a file name with a slash', meta('../etc/passwd'), 'fileName'],
      ['an unknown field', meta('a.pdf', { owner: 'me' }), 'owner'],
    ])('refuses %s with 400 and keeps nothing', async (_label, m, field) => {
      const before = await trace();
      const res = await upload(t, owner, vaultId, recordId, { meta: m as Record<string, string> }).expect(400);
      expect(res.body).toMatchObject({ status: 400, code: 'validation_failed' });
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(await trace()).toBe(before);
    });

    it('refuses a request without the file part (400 missing_file_part)', async () => {
      const res = await postFiles(t, owner, vaultId, recordId).query(meta('a.pdf')).field('caption', 'only fields').expect(400);
      expect(res.body).toMatchObject({ code: 'missing_file_part', errors: [{ field: 'file' }] });
    });

    it('refuses a file in another part and a body that is not multipart', async () => {
      await postFiles(t, owner, vaultId, recordId).query(meta('a.pdf')).attach('document', Buffer.from('x'), 'a.pdf').expect(400);
      const res = await t.post(owner, `${path()}?fileName=a.pdf&correlationId=1&fileType=document`, { file: 'x' }).expect(415);
      expect(res.body.code).toBe('unsupported_media_type');
    });

    it('refuses a duplicate name in the record with 409 and keeps nothing more', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('dup.pdf') }).expect(201);
      const before = await trace();
      const res = await upload(t, owner, vaultId, recordId, { meta: meta('dup.pdf') }).expect(409);
      expect(res.body.code).toBe('file_name_taken');
      expect(await trace()).toBe(before);
      // the same name in another record is fine
      const other = await t.createRecord(owner, vaultId);
      await upload(t, owner, vaultId, other, { meta: meta('dup.pdf') }).expect(201);
    });

    it('keeps one file when two uploads of the same name race, and no stray bytes', async () => {
      const results = await Promise.all(
        [1, 2, 3].map(() => upload(t, owner, vaultId, recordId, { meta: meta('race.pdf'), bytes: randomBytes(200 * 1024) })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      expect(await rowsOf()).toHaveLength(1);
      // the storage holds exactly the committed blobs (files of the same bytes share one): the losers' bytes are gone
      const committed = await t.sql<{ storage_key: string }>('SELECT storage_key FROM blobs');
      expect(filesBelow(join(dir, 'objects')).sort()).toEqual(committed.map((r) => storage.objectPath(r.storage_key)).sort());
      expect(await t.sql('SELECT 1 FROM file_purges')).toEqual([]);
    });

    it('refuses two file parts with 400 and keeps neither', async () => {
      const before = await trace();
      await postFiles(t, owner, vaultId, recordId)
        .query(meta('two.pdf'))
        .attach('file', randomBytes(1000), 'a.pdf')
        .attach('file', randomBytes(1000), 'b.pdf')
        .expect(400);
      await eventually(async () => (await trace()) === before);
    });

    it('takes an RFC 9530 Repr-Digest (sha-256) as the file digest and sends one with every download', async () => {
      const bytes = randomBytes(500);
      const digest = `sha-256=:${Buffer.from(sha256(bytes), 'hex').toString('base64')}:`;
      await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('digest.bin'),
        headers: { 'repr-digest': `sha-512=:${'A'.repeat(86)}==:, ${digest}` },
      }).expect(201);
      const res = await binary(t.get(owner, `${path()}/digest.bin`)).expect(200);
      expect(res.headers['repr-digest']).toBe(digest);
      expect(
        createHash('sha256')
          .update(res.body as Buffer)
          .digest('base64'),
      ).toBe(digest.slice(9, -1));
      const before = await trace();
      const wrong = `sha-256=:${Buffer.from(sha256(Buffer.from('other')), 'hex').toString('base64')}:`;
      const mismatch = await upload(t, owner, vaultId, recordId, {
        meta: meta('bad.bin'),
        headers: { 'repr-digest': wrong },
      }).expect(400);
      expect(mismatch.body.code).toBe('checksum_mismatch');
      const disagree = await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('bad.bin'),
        headers: { 'repr-digest': digest, 'x-checksum-sha256': sha256(Buffer.from('other')) },
      }).expect(400);
      expect(disagree.body.errors).toEqual([{ field: 'repr-digest', message: expect.any(String) }]);
      const malformed = await upload(t, owner, vaultId, recordId, {
        meta: meta('bad.bin'),
        headers: { 'repr-digest': 'sha-256=abc' },
      }).expect(400);
      expect(malformed.body.errors).toEqual([{ field: 'repr-digest', message: expect.any(String) }]);
      expect(await trace()).toBe(before);
    });

    it('refuses a checksum mismatch with 400 and keeps nothing', async () => {
      const before = await trace();
      const res = await upload(t, owner, vaultId, recordId, {
        headers: { 'x-checksum-sha256': sha256(Buffer.from('something else')) },
      }).expect(400);
      expect(res.body.code).toBe('checksum_mismatch');
      expect(await trace()).toBe(before);
      const bad = await upload(t, owner, vaultId, recordId, { headers: { 'x-checksum-sha256': 'abc' } }).expect(400);
      expect(bad.body.errors).toEqual([{ field: 'x-checksum-sha256', message: expect.any(String) }]);
    });

    it('refuses a file over vault.maxUploadMBs with 413 and no trace (declared length)', async () => {
      const before = await trace();
      const res = await upload(t, owner, vaultId, recordId, { bytes: randomBytes(2 * MiB) }).expect(413);
      expect(res.body).toMatchObject({ status: 413, code: 'payload_too_large' });
      expect(await trace()).toBe(before);
    });

    it('stops a file over vault.maxUploadMBs while streaming with 413 and no trace', async () => {
      const before = await trace();
      // within the multipart allowance of the length check: only the stream count catches it
      const res = await upload(t, owner, vaultId, recordId, { bytes: randomBytes(MiB + 100 * 1024) }).expect(413);
      expect(res.body.code).toBe('payload_too_large');
      expect(await trace()).toBe(before);
      await upload(t, owner, vaultId, recordId, { bytes: randomBytes(MiB), meta: meta('exactly-1mib.bin') }).expect(201);
    });

    it('enforces vault.maxVaultGBs as a storage quota: 409 storage_quota_exceeded, no trace', async () => {
      const full = await t.createVault(owner, { licenseKey: 'PREMIUM-DEMO-2026' });
      const rec = await t.createRecord(owner, full);
      const before = await trace();
      const res = await upload(t, owner, full, rec, { bytes: randomBytes(10) }).expect(409);
      expect(res.body.code).toBe('storage_quota_exceeded');
      expect(await trace()).toBe(before);
      // an empty file takes no room
      await upload(t, owner, full, rec, { bytes: Buffer.alloc(0), meta: meta('empty.txt') }).expect(201);
    });

    it('leaves nothing when the client aborts mid-upload', async () => {
      const before = await trace();
      await new Promise<void>((resolve) => {
        const req = streamUpload(t, owner, path(), meta('aborted.bin'), 900 * 1024);
        req.on('error', () => resolve());
        req.write(RAW_FILE_HEAD);
        req.write(randomBytes(200 * 1024));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 300);
      });
      await eventually(async () => (await trace()) === before);
    });

    it('answers 503 service_unavailable and keeps nothing when the upload outlived its queued removal', async () => {
      const before = await trace();
      const bytes = randomBytes(64 * 1024);
      const req = streamUpload(t, owner, path(), meta('slow.bin'), RAW_FILE_HEAD.length + bytes.length + RAW_TAIL.length);
      const answer = new Promise<{ status?: number; body: string }>((resolve, reject) => {
        req.on('error', reject);
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        });
      });
      req.write(RAW_FILE_HEAD);
      req.write(bytes.subarray(0, 1024));
      // the upload is streaming: its removal is queued; the purge (or an operator) takes it now
      await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 1);
      await t.sql('DELETE FROM file_purges');
      req.end(Buffer.concat([bytes.subarray(1024), Buffer.from(RAW_TAIL)]));
      const res = await answer;
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body)).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(await trace()).toBe(before);
    });

    it('removes the bytes of an upload that never committed once its grace period is over', async () => {
      const key = '0f0e0d0c-0000-4000-8000-000000000001';
      mkdirSync(join(dir, 'tmp'), { recursive: true });
      writeFileSync(join(dir, 'tmp', `${key}.part`), 'half written');
      await t.sql(`INSERT INTO file_purges (storage_key, purge_after) VALUES ($1, now() - interval '1 second')`, [key]);
      await eventually(async () => !existsSync(join(dir, 'tmp', `${key}.part`)));
      await eventually(async () => (await t.sql('SELECT 1 FROM file_purges WHERE storage_key = $1', [key])).length === 0);
    });
  });

  describe('GET list and download', () => {
    it('lists the files grouped by correlationId', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf', { correlationId: 'c1', uploadTitle: 'First' }) }).expect(
        201,
      );
      await upload(t, owner, vaultId, recordId, {
        meta: meta('b.jpg', { correlationId: 'c1', uploadTitle: 'First', fileType: 'image', caption: 'B' }),
      }).expect(201);
      await upload(t, owner, vaultId, recordId, {
        meta: meta('c.pdf', { correlationId: 'c2', uploadTitle: 'Second', fileType: 'cloud' }),
      }).expect(201);
      const res = await t.get(owner, path()).expect(200);
      expect(res.body).toHaveLength(2);
      expect(res.body[0]).toMatchObject({ correlationId: 'c2', uploadTitle: 'Second', fileType: 'cloud' });
      expect(res.body[1]).toMatchObject({ correlationId: 'c1', uploadTitle: 'First', fileType: 'document' });
      expect(res.body[1].files.map((f: { fileName: string }) => f.fileName)).toEqual(['a.pdf', 'b.jpg']);
      expect(Object.keys(res.body[0].files[0]).sort()).toEqual(
        ['active', 'caption', 'cloaudStorage', 'fileName', 'fileSize', 'fileType', 'fileUrl', 'updatedAt', 'uploader'].sort(),
      );
      expect(res.body[0].files[0]).toMatchObject({ cloaudStorage: true, fileSize: 1000, uploader: 'olga' });
      const empty = await t.createRecord(owner, vaultId);
      expect((await t.get(owner, path(vaultId, empty)).expect(200)).body).toEqual([]);
    });

    it('streams the bytes with type, length, ETag and a safe disposition', async () => {
      const bytes = randomBytes(4096);
      await upload(t, owner, vaultId, recordId, {
        bytes,
        meta: meta('résumé "final".pdf'),
        contentType: 'application/pdf; charset=binary',
      }).expect(201);
      const res = await binary(t.get(owner, `${path()}/${encodeURIComponent('résumé "final".pdf')}`)).expect(200);
      expect(Buffer.compare(res.body as Buffer, bytes)).toBe(0);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.headers['content-length']).toBe('4096');
      expect(res.headers['etag']).toBe(`"${sha256(bytes)}"`);
      expect(res.headers['accept-ranges']).toBe('bytes');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-disposition']).toBe(
        `attachment; filename="r_sum_ _final_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf`,
      );
    });

    it('answers Range with 206, unsatisfiable ranges with 416 and If-None-Match with 304', async () => {
      const bytes = randomBytes(1000);
      await upload(t, owner, vaultId, recordId, { bytes, meta: meta('r.bin'), contentType: 'image/png' }).expect(201);
      const get = (headers: Record<string, string>) => {
        let req = t.get(owner, `${path()}/r.bin`);
        for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
        return binary(req);
      };
      const part = await get({ Range: 'bytes=10-19' }).expect(206);
      expect(Buffer.compare(part.body as Buffer, bytes.subarray(10, 20))).toBe(0);
      expect(part.headers['content-range']).toBe('bytes 10-19/1000');
      expect(part.headers['content-length']).toBe('10');
      expect(part.headers['content-type']).toBe('image/png');
      const tail = await get({ Range: 'bytes=-5' }).expect(206);
      expect(Buffer.compare(tail.body as Buffer, bytes.subarray(995))).toBe(0);
      const open = await get({ Range: 'bytes=990-' }).expect(206);
      expect(open.headers['content-range']).toBe('bytes 990-999/1000');
      const beyond = await get({ Range: 'bytes=1000-1010' }).expect(416);
      expect(beyond.headers['content-range']).toBe('bytes */1000');
      const etag = `"${sha256(bytes)}"`;
      const notModified = await get({ 'If-None-Match': etag }).expect(304);
      expect(notModified.headers['etag']).toBe(etag);
      await get({ 'If-None-Match': '"other"' }).expect(200);
      await get({ Range: 'bytes=0-1', 'If-Range': '"other"' }).expect(200);
    });

    it('answers 404 for an unknown file name', async () => {
      await t.get(owner, `${path()}/nothing.pdf`).expect(404);
    });

    it('answers 404 not_found when the bytes are gone but the row was read (a delete racing the download)', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('gone.pdf') }).expect(201);
      const [row] = await rowsOf();
      rmSync(storage.objectPath(row.storage_key));
      const res = await t.get(owner, `${path()}/gone.pdf`).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 404, code: 'not_found', detail: 'The file does not exist.' });
      await t.get(owner, `${path()}/gone.pdf`).set('Range', 'bytes=0-9').expect(404);
    });
  });

  describe('PUT metadata', () => {
    it('updates the metadata with the stored correlationId and bumps __v', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('u.jpg', { fileType: 'image', caption: 'Old' }) }).expect(201);
      const res = await t
        .put(owner, `${path()}/u.jpg`, {
          correlationId: '260101120000',
          caption: 'New',
          uploadTitle: 'Renamed',
          uploadDetail: 'd',
        })
        .expect(200);
      expect(res.body).toMatchObject({
        _id: expect.any(String),
        recordDetail: recordId,
        __v: 1,
        caption: 'New',
        uploadTitle: 'Renamed',
        uploadDetail: 'd',
        fileName: 'u.jpg',
      });
      const [event] = (await t.outbox(SUBJECTS.fileUpdated)).filter((e) => e.payload.record.id === recordId);
      expect(event.payload).toMatchObject({ fileName: 'u.jpg', fileType: 'image', correlationId: '260101120000' });
    });

    it('refuses a stale correlationId (409), an image without caption and a missing correlationId (400)', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('v.jpg', { fileType: 'image', caption: 'Old' }) }).expect(201);
      const stale = await t.put(owner, `${path()}/v.jpg`, { correlationId: 'other', caption: 'x' }).expect(409);
      expect(stale.body.code).toBe('stale_correlation_id');
      const noCaption = await t.put(owner, `${path()}/v.jpg`, { correlationId: '260101120000' }).expect(400);
      expect(noCaption.body.errors).toEqual([{ field: 'caption', message: expect.any(String) }]);
      const noCorrelation = await t.put(owner, `${path()}/v.jpg`, { caption: 'x' }).expect(400);
      expect(noCorrelation.body.errors.map((e: { field: string }) => e.field)).toContain('correlationId');
      await t.put(owner, `${path()}/v.jpg`, { correlationId: '260101120000', caption: 'x', fileName: 'y' }).expect(400);
      await t.put(owner, `${path()}/missing.jpg`, { correlationId: '260101120000', caption: 'x' }).expect(404);
      const [row] = await t.sql<{ caption: string; revision: number }>(
        `SELECT caption, revision FROM record_files WHERE record_id = $1 AND file_name = 'v.jpg'`,
        [recordId],
      );
      expect(row).toEqual({ caption: 'Old', revision: 0 });
    });
  });

  describe('DELETE', () => {
    it('answers the metadata and moves the file to the trash; a purge removes the bytes', async () => {
      const created = await upload(t, owner, vaultId, recordId, { meta: meta('d.pdf') }).expect(201);
      const [row] = await rowsOf();
      const res = await t.delete(owner, `${path()}/d.pdf`).expect(200);
      expect(res.body).toMatchObject({ _id: created.body.id, fileName: 'd.pdf', recordDetail: recordId, __v: 0 });
      const [trashed] = await t.sql('SELECT deleted_at IS NOT NULL AS trashed FROM record_files WHERE id = $1', [row.id]);
      expect(trashed).toEqual({ trashed: true });
      expect(existsSync(storage.objectPath(row.storage_key))).toBe(true);
      const [event] = (await t.outbox(SUBJECTS.fileDeleted)).filter((e) => e.payload.record.id === recordId);
      expect(event.payload).toMatchObject({ fileName: 'd.pdf', fileSize: 1000 });
      await t.delete(owner, `${path()}/d.pdf`).expect(404);
      await t.get(owner, `${path()}/d.pdf`).expect(404);
      await t.delete(owner, `/trash/item-id/${row.id}`).expect(200);
      expect(await rowsOf()).toEqual([]);
      await eventually(() => !existsSync(storage.objectPath(row.storage_key)));
    });
  });

  describe('roles', () => {
    it('lets viewers list and download but not upload, update or delete', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('r.pdf') }).expect(201);
      const viewer = await t.caller('tenant-a');
      await t.grantVaultRole(vaultId, viewer, 'vault_viewer');
      await t.get(viewer, path()).expect(200);
      await t.get(viewer, `${path()}/r.pdf`).expect(200);
      const before = await trace();
      await upload(t, viewer, vaultId, recordId, { meta: meta('v.pdf') }).expect(403);
      await t.put(viewer, `${path()}/r.pdf`, { correlationId: '260101120000' }).expect(403);
      await t.delete(viewer, `${path()}/r.pdf`).expect(403);
      expect(await trace()).toBe(before);
      const recViewer = await t.caller('tenant-a');
      await t.grantRecordRole(recordId, recViewer, 'rec_viewer');
      await t.get(recViewer, `${path()}/r.pdf`).expect(200);
      await upload(t, recViewer, vaultId, recordId, { meta: meta('w.pdf') }).expect(403);
    });

    it('lets vault editors and record editors upload, update and delete', async () => {
      const editor = await t.caller('tenant-a', 'ed');
      await t.grantVaultRole(vaultId, editor, 'vault_editor');
      const recEditor = await t.caller('tenant-a', 'red');
      await t.grantRecordRole(recordId, recEditor, 'rec_editor');
      const res = await upload(t, editor, vaultId, recordId, { meta: meta('e.pdf') }).expect(201);
      expect(res.body.uploader).toBe('ed');
      await upload(t, recEditor, vaultId, recordId, { meta: meta('re.pdf') }).expect(201);
      await t.put(recEditor, `${path()}/e.pdf`, { correlationId: '260101120000' }).expect(200);
      await t.delete(recEditor, `${path()}/e.pdf`).expect(200);
      await t.delete(editor, `${path()}/re.pdf`).expect(200);
    });

    it('answers 404 to a stranger and to another tenant, and changes nothing', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('s.pdf') }).expect(201);
      const stranger = await t.caller('tenant-a');
      const foreign = await t.caller('tenant-b');
      // a membership row of another tenant on this vault grants nothing
      await t.grantVaultRole(vaultId, foreign, 'vault_editor');
      const before = await trace();
      for (const c of [stranger, foreign]) {
        await t.get(c, path()).expect(404);
        await t.get(c, `${path()}/s.pdf`).expect(404);
        await upload(t, c, vaultId, recordId, { meta: meta('x.pdf') }).expect(404);
        await t.put(c, `${path()}/s.pdf`, { correlationId: '260101120000' }).expect(404);
        await t.delete(c, `${path()}/s.pdf`).expect(404);
      }
      expect(await trace()).toBe(before);
      await t.http().get(`/api/v1${path()}`).expect(401);
    });
  });

  describe('files follow their record', () => {
    it('moves with the record on transfer', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('t.pdf') }).expect(201);
      const dest = await t.createVault(owner);
      await t
        .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, { destinationVaultId: dest })
        .expect(200);
      await t.get(owner, `${path()}/t.pdf`).expect(404);
      const list = await t.get(owner, path(dest)).expect(200);
      expect(list.body[0].files[0]).toMatchObject({ fileName: 't.pdf', fileUrl: `${path(dest)}/t.pdf` });
      await t.get(owner, `${path(dest)}/t.pdf`).expect(200);
    });

    it('refuses a transfer into a vault without room for the files (409), moving nothing', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('t.pdf') }).expect(201);
      const full = await t.createVault(owner, { licenseKey: 'PREMIUM-DEMO-2026' });
      const res = await t
        .put(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}/transfer`, { destinationVaultId: full })
        .expect(409);
      expect(res.body.code).toBe('storage_quota_exceeded');
      await t.get(owner, `${path()}/t.pdf`).expect(200);
    });

    it('go to the trash with their record and are purged with it, bytes included', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('x.pdf') }).expect(201);
      const [row] = await rowsOf();
      await t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
      expect(await rowsOf()).toHaveLength(1);
      await t.delete(owner, `/trash/item-id/${recordId}`).expect(200);
      expect(await rowsOf()).toEqual([]);
      await eventually(() => !existsSync(storage.objectPath(row.storage_key)));
    });

    it('go to the trash with their vault and are purged with it, bytes included', async () => {
      await upload(t, owner, vaultId, recordId, { meta: meta('x.pdf') }).expect(201);
      const [row] = await rowsOf();
      await t.delete(owner, `/vault/vault-id/${vaultId}`).expect(200);
      expect(await rowsOf()).toHaveLength(1);
      await t.delete(owner, `/trash/item-id/${vaultId}`).expect(200);
      expect(await rowsOf()).toEqual([]);
      await eventually(() => !existsSync(storage.objectPath(row.storage_key)));
    });
  });
});
