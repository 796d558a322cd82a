import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { FileStorage } from '../src/capabilities/storage/file-storage';
import { binary, filesPath, meta, sha256 } from './files-support';
import { endpointOf, tusUpload, uploadsPath } from './resumable-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const KiB = 1024;
const CHUNK = 100 * KiB;

/**
 * A chunk counts only once it is durable (docs/files.md, Chunks): when the storage cannot
 * make it durable (a failed fsync, a refused S3 part), the chunk is not recorded, the PATCH
 * fails with a problem body, HEAD keeps the offset before it and a client goes on from
 * there. The real filesystem adapter writes the bytes; its append is then made to fail.
 */
describe('resumable uploads: a chunk the storage cannot make durable', () => {
  let t: RecordsTestApp;
  let dir: string;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;
  const bytes = randomBytes(3 * CHUNK);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumable-durable-'));
    t = await RecordsTestApp.start('records_resumable_durable', {
      VAULT_PLANS_FILE: writePlansFile({ free: { 'vault.maxUploadMBs': '8' } }),
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
    });
    owner = await t.caller('tenant-a', 'dora');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tus = (method: 'post' | 'head' | 'patch', path: string) =>
    request(t.app.getHttpServer())[method](path).set('Tus-Resumable', '1.0.0').set('Authorization', `Bearer ${owner.token}`);
  const patch = (path: string, offset: number) =>
    tus('patch', path)
      .set('Upload-Offset', String(offset))
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes.subarray(offset, offset + CHUNK));

  it('is not recorded: the PATCH fails with a problem body, HEAD keeps the offset before it, and tus-js-client completes from there', async () => {
    const created = await tus('post', uploadsPath(vaultId, recordId))
      .set('Upload-Length', String(bytes.length))
      .set(
        'Upload-Metadata',
        Object.entries({ ...meta('unsynced.bin'), sha256: sha256(bytes) })
          .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
          .join(','),
      )
      .expect(201);
    const path = new URL(created.headers['location'] as string, 'http://localhost').pathname;
    await patch(path, 0).expect(204);

    // the second chunk's bytes are written, then making them durable fails
    const storage = t.app.get(FileStorage);
    const append = storage.append.bind(storage);
    const spy = jest.spyOn(storage, 'append').mockImplementationOnce(async (...args) => {
      await append(...args);
      throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    });
    const failed = await patch(path, CHUNK);
    expect(failed.status).toBe(500);
    expect(failed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(failed.body).toMatchObject({ code: 'internal_error', requestId: expect.any(String) });
    expect(failed.body.detail).not.toMatch(/EIO|fsync/);
    spy.mockRestore();

    const head = await tus('head', path).expect(200);
    expect(head.headers['upload-offset']).toBe(String(CHUNK));
    await patch(path, 2 * CHUNK).expect(409);

    const done = await tusUpload(owner, bytes, {
      uploadUrl: `${endpointOf(t.app, vaultId, recordId)}/${path.split('/').pop()}`,
      chunkSize: CHUNK,
    }).done;
    expect(done.getHeader('Record-File-Id')).toEqual(expect.any(String));
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/unsynced.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });
});
