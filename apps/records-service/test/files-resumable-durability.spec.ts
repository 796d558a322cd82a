import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { FileStorage, type WrittenAppend } from '../src/storage/file-storage';
import { eventually, filesPath, meta, sha256, binary } from './files-support';
import { endpointOf, tusUpload, uploadsPath } from './resumable-support';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const KiB = 1024;
const CHUNK = 100 * KiB;

/**
 * When a chunk is durable (docs/files.md, Durability of chunks): a chunk that does not
 * complete the upload is answered once written and recorded only once fsynced, under the
 * upload's lock; the last chunk is answered only once durable, and TUS_SYNC_BEFORE_ANSWER
 * makes every chunk wait. The storage's `durable` step of the real filesystem adapter is
 * held back or failed here to see the order.
 */
describe('resumable uploads: when a chunk counts', () => {
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
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'dora');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const tus = (app: INestApplication, method: 'post' | 'head' | 'patch', path: string) =>
    request(app.getHttpServer())
      [method](path)
      .set('Tus-Resumable', '1.0.0')
      .set('Authorization', `Bearer ${owner.token}`);

  const createUpload = async (app: INestApplication, name: string): Promise<string> => {
    const m = meta(name);
    const res = await tus(app, 'post', uploadsPath(vaultId, recordId))
      .set('Upload-Length', String(bytes.length))
      .set(
        'Upload-Metadata',
        Object.entries({ ...m, sha256: sha256(bytes) })
          .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
          .join(','),
      )
      .expect(201);
    return new URL(res.headers['location'] as string, 'http://localhost').pathname;
  };

  const patch = (app: INestApplication, path: string, offset: number) =>
    tus(app, 'patch', path)
      .set('Upload-Offset', String(offset))
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes.subarray(offset, offset + CHUNK));

  const recordedOffset = async (path: string) =>
    Number(
      (
        await t.sql<{ upload_offset: string }>('SELECT upload_offset FROM resumable_uploads WHERE id = $1', [
          path.split('/').pop(),
        ])
      )[0]?.upload_offset,
    );

  /**
   * Holds back the `durable` step of the storage's appends: each one waits until the test
   * lets it go (`release`), or fails when `fail` says so. `started` counts appends whose
   * `durable` was called.
   */
  const holdDurability = (app: INestApplication, fail: (n: number) => boolean = () => false) => {
    const storage = app.get(FileStorage);
    const append = storage.append.bind(storage);
    const gates: (() => void)[] = [];
    let started = 0;
    jest.spyOn(storage, 'append').mockImplementation(async (...args): Promise<WrittenAppend> => {
      const written = await append(...args);
      return {
        state: written.state,
        durable: async () => {
          const n = ++started;
          await new Promise<void>((go) => gates.push(go));
          await written.durable();
          if (fail(n)) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
        },
      };
    });
    return {
      started: () => started,
      release: () => gates.splice(0).forEach((go) => go()),
    };
  };

  it('answers a chunk once written and records it once durable; a HEAD after the answer waits for the record', async () => {
    const path = await createUpload(t.app, 'answered.bin');
    const held = holdDurability(t.app);
    const answer = await patch(t.app, path, 0).expect(204);
    expect(answer.headers['upload-offset']).toBe(String(CHUNK));
    // answered while its fsync is still held back: not recorded yet
    expect(held.started()).toBe(1);
    expect(await recordedOffset(path)).toBe(0);

    const head = tus(t.app, 'head', path).then((res) => res);
    await new Promise((r) => setTimeout(r, 200));
    expect(await recordedOffset(path)).toBe(0);
    held.release();
    const res = await head;
    expect(res.status).toBe(200);
    expect(res.headers['upload-offset']).toBe(String(CHUNK));
    expect(await recordedOffset(path)).toBe(CHUNK);
  });

  it('does not answer the last chunk before it is durable, and commits the file', async () => {
    const path = await createUpload(t.app, 'last.bin');
    await patch(t.app, path, 0).expect(204);
    await patch(t.app, path, CHUNK).expect(204);
    const held = holdDurability(t.app);
    let answered = false;
    const last = patch(t.app, path, 2 * CHUNK).then((res) => {
      answered = true;
      return res;
    });
    await eventually(() => held.started() === 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    held.release();
    const res = await last;
    expect(res.status).toBe(204);
    expect(res.headers['record-file-id']).toEqual(expect.any(String));
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/last.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });

  it('with TUS_SYNC_BEFORE_ANSWER every chunk is answered only once durable and recorded', async () => {
    const strict = await t.bootInstance({ TUS_SYNC_BEFORE_ANSWER: 'true' });
    try {
      const path = await createUpload(strict, 'strict.bin');
      const held = holdDurability(strict);
      let answered = false;
      const first = patch(strict, path, 0).then((res) => {
        answered = true;
        return res;
      });
      await eventually(() => held.started() === 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toBe(false);
      held.release();
      expect((await first).status).toBe(204);
      expect(await recordedOffset(path)).toBe(CHUNK);
    } finally {
      await strict.close();
    }
  });

  it('a chunk whose fsync fails is not recorded: HEAD answers the offset before it, the answered one is 409, and tus-js-client resumes from HEAD', async () => {
    const path = await createUpload(t.app, 'failed-sync.bin');
    const held = holdDurability(t.app, (n) => n === 2);
    // (supertest sends once awaited: then() starts it)
    const first = patch(t.app, path, 0).then((res) => res);
    await eventually(() => held.started() === 1);
    held.release();
    expect((await first).status).toBe(204);
    // the second chunk is answered, then its fsync fails
    const second = await patch(t.app, path, CHUNK).expect(204);
    expect(second.headers['upload-offset']).toBe(String(2 * CHUNK));
    await eventually(() => held.started() === 2);
    held.release();
    const head = await tus(t.app, 'head', path).expect(200);
    expect(head.headers['upload-offset']).toBe(String(CHUNK));
    const stale = await patch(t.app, path, 2 * CHUNK).expect(409);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    jest.restoreAllMocks();

    const done = await tusUpload(owner, bytes, {
      uploadUrl: `${endpointOf(t.app, vaultId, recordId)}/${path.split('/').pop()}`,
      chunkSize: CHUNK,
    }).done;
    expect(done.getHeader('Record-File-Id')).toEqual(expect.any(String));
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/failed-sync.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });
});
