import { sealedSize } from '../src/capabilities/encryption/age-stream';
import { sealedOffset } from '../src/capabilities/encryption/sealed-append';
import { randomBytes } from 'node:crypto';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import * as tus from 'tus-js-client';
import { binary, eventually, filesPath, meta, sha256 } from './files-support';
import { endpointOf, statusOf, tusUpload, uploadAcrossInstances } from './resumable-support';
import { LOOPBACK_S3_BUCKET, LoopbackS3 } from '@vault/platform/testing/s3';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const MiB = 1024 * 1024;
const BUCKET = LOOPBACK_S3_BUCKET;

describe('resumable uploads, tus (S3 storage against s3rver)', () => {
  let s3: LoopbackS3;
  let client: S3Client;
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  const keysOf = async (prefix: string) =>
    ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key).sort();
  const uploadRow = async () =>
    (
      await t.sql<{
        id: string;
        storage_key: string;
        upload_offset: string;
        store_state: { parts: unknown[]; tail?: { key: string; size: number } };
      }>('SELECT * FROM resumable_uploads WHERE record_id = $1', [recordId])
    )[0];

  /** The storage key of the last upload `acrossInstances` started. */
  let startedKey = '';
  /** An upload whose first chunk (a tail object) goes to one instance, stopped then, and the rest to a new one. */
  const acrossInstances = (bytes: Buffer, metadata: Record<string, string>) =>
    uploadAcrossInstances(owner, bytes, {
      boot: () => t.bootInstance(),
      vaultId,
      recordId,
      metadata,
      chunkSize: 3 * MiB,
      recordedOffset: async () => {
        const row = await uploadRow();
        startedKey = row?.storage_key ?? startedKey;
        return Number(row?.upload_offset ?? 0);
      },
    });

  beforeAll(async () => {
    s3 = await LoopbackS3.start();
    client = s3.client;
    t = await RecordsTestApp.start('records_resumable_s3', {
      VAULT_PLANS_FILE: writePlansFile({
        free: { 'vault.maxUploadMBs': '32' },
      }),
      ...s3.env(),
      TUS_SWEEP_INTERVAL_MS: '100',
    });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'sam');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    await t?.stop();
    await s3?.stop();
  });

  it('maps 3 MiB chunks onto 5 MiB parts of one S3 multipart upload, the rest of a chunk in a tail object', async () => {
    const bytes = randomBytes(12 * MiB + 321);
    const endpoint = endpointOf(t.app, vaultId, recordId);
    const metadata = { ...meta('scan.bin'), sha256: sha256(bytes) };
    const first = tusUpload(owner, bytes, {
      endpoint,
      chunkSize: 3 * MiB,
      checksum: 'sha256',
      metadata,
      onProgress: (sent, up) => {
        if (sent >= 6 * MiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRow())?.upload_offset ?? 0) >= 6 * MiB, 10_000);
    // two chunks in: one whole 5 MiB part sent, the rest of the 6 MiB sealed (96 chunks of 64 KiB + 16) in a tail object
    const mid = await uploadRow();
    expect(mid.store_state.parts).toHaveLength(1);
    expect(mid.store_state.tail).toEqual({
      key: `${mid.storage_key}.tail.${5 * MiB}`,
      size: sealedOffset(6 * MiB) - 5 * MiB,
    });
    expect(await keysOf(mid.storage_key)).toEqual([`${mid.storage_key}.tail.${5 * MiB}`, `${mid.storage_key}.upload`]);

    const last = await tusUpload(owner, bytes, {
      uploadUrl: first.upload.url as string,
      chunkSize: 3 * MiB,
      checksum: 'sha256',
    }).done;
    const fileId = last.getHeader('Record-File-Id');
    const [row] = await t.sql<{ storage_key: string }>('SELECT storage_key FROM record_files WHERE id = $1', [fileId]);
    expect(row.storage_key).toBe(mid.storage_key);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: row.storage_key }));
    expect(head.ContentLength).toBe(sealedSize(bytes.length));
    // nothing beside the object: no marker, no tail
    expect(await keysOf(row.storage_key)).toEqual([row.storage_key]);
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/scan.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });

  it('discards a chunk with a wrong Upload-Checksum (460) and keeps the recorded parts and tail', async () => {
    const bytes = randomBytes(8 * MiB);
    const first = tusUpload(owner, bytes, {
      endpoint: endpointOf(t.app, vaultId, recordId),
      chunkSize: 3 * MiB,
      metadata: meta('half.bin'),
      onProgress: (sent, up) => {
        if (sent >= 3 * MiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRow())?.upload_offset ?? 0) >= 3 * MiB, 10_000);
    const before = await uploadRow();
    const wrong = tusUpload(owner, bytes, {
      uploadUrl: first.upload.url as string,
      chunkSize: 3 * MiB,
      checksum: 'wrong',
    });
    expect(
      statusOf(
        await wrong.done.then(
          () => undefined,
          (e: unknown) => e,
        ),
      ),
    ).toBe(460);
    expect(await uploadRow()).toEqual(before);
    const last = await tusUpload(owner, bytes, {
      uploadUrl: first.upload.url as string,
      chunkSize: 3 * MiB,
      checksum: 'sha1',
    }).done;
    expect(last.getHeader('Record-File-Id')).toEqual(expect.any(String));
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/half.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });

  it('terminating an upload removes its marker and tail objects', async () => {
    const bytes = randomBytes(7 * MiB);
    const run = tusUpload(owner, bytes, {
      endpoint: endpointOf(t.app, vaultId, recordId),
      chunkSize: 3 * MiB,
      metadata: meta('gone.bin'),
      onProgress: (sent, up) => {
        if (sent >= 3 * MiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRow())?.upload_offset ?? 0) >= 3 * MiB, 10_000);
    const row = await uploadRow();
    expect(await keysOf(row.storage_key)).toEqual([`${row.storage_key}.tail.0`, `${row.storage_key}.upload`]);
    await tus.Upload.terminate(run.upload.url as string, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    await eventually(async () => (await keysOf(row.storage_key)).length === 0);
    expect(await uploadRow()).toBeUndefined();
  });

  it('completes an upload another instance started: the completed object is read back once for its SHA-256', async () => {
    const bytes = randomBytes(7 * MiB + 5);
    const last = await acrossInstances(bytes, { ...meta('moved.bin'), sha256: sha256(bytes) });
    const fileId = last.getHeader('Record-File-Id');
    const [row] = await t.sql<{ storage_key: string; sha256: string }>(
      'SELECT storage_key, sha256 FROM record_files WHERE id = $1',
      [fileId],
    );
    expect(row.sha256).toBe(sha256(bytes));
    expect(await keysOf(row.storage_key)).toEqual([row.storage_key]);
    const got = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/moved.bin`)).expect(200);
    expect(sha256(got.body as Buffer)).toBe(sha256(bytes));
  });

  it('refuses an upload another instance started whose bytes do not match the sha256 metadata: the object is removed, the reservation released', async () => {
    const bytes = randomBytes(7 * MiB + 5);
    const err = await acrossInstances(bytes, { ...meta('moved-bad.bin'), sha256: sha256(Buffer.from('other')) }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await expectChecksumRefused(err);
  });

  it('refuses an upload sent in chunks to one instance whose bytes do not match the sha256 metadata, keeping nothing', async () => {
    const bytes = randomBytes(7 * MiB + 5);
    // the first chunk, then the rest in a second run: the same instance hashed every byte
    const first = tusUpload(owner, bytes, {
      endpoint: endpointOf(t.app, vaultId, recordId),
      chunkSize: 3 * MiB,
      metadata: { ...meta('bad.bin'), sha256: sha256(Buffer.from('other')) },
      onProgress: (sent, up) => {
        if (sent > 3 * MiB) void up.abort();
      },
    });
    await eventually(async () => Number((await uploadRow())?.upload_offset ?? 0) >= 3 * MiB, 10_000);
    startedKey = (await uploadRow()).storage_key;
    const err = await tusUpload(owner, bytes, { uploadUrl: first.upload.url as string, chunkSize: 3 * MiB }).done.then(
      () => undefined,
      (e: unknown) => e,
    );
    await expectChecksumRefused(err);
  });

  /** The last chunk of the upload `startedKey` was refused for the sha256 metadata: no record file, no upload, no object. */
  async function expectChecksumRefused(err: unknown): Promise<void> {
    expect(statusOf(err)).toBe(400);
    expect(JSON.parse((err as tus.DetailedError).originalResponse?.getBody() ?? '{}')).toMatchObject({
      code: 'checksum_mismatch',
    });
    expect(await t.sql('SELECT id FROM record_files WHERE record_id = $1', [recordId])).toEqual([]);
    expect(await uploadRow()).toBeUndefined();
    expect(startedKey).not.toBe('');
    await eventually(async () => (await keysOf(startedKey)).length === 0);
    expect(await t.sql('SELECT * FROM file_purges WHERE storage_key = $1', [startedKey])).toEqual([]);
    startedKey = '';
  }
});
