import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { sealedSize } from '../src/capabilities/encryption/age-stream';
import { binary, filesPath, meta, sha256, upload } from './files-support';
import { LOOPBACK_S3_BUCKET, LoopbackS3 } from '@vault/platform/testing/s3';
import { Caller, RecordsTestApp, writePlansFile } from './support';

const MiB = 1024 * 1024;
const BUCKET = LOOPBACK_S3_BUCKET;

describe('record files (S3 storage against s3rver)', () => {
  let s3: LoopbackS3;
  let client: S3Client;
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;

  const keys = async () =>
    ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key).sort();
  /** Waits until the storage no longer lists `key` (the purge queue removes it after the commit). */
  const objectGone = async (key: string) => {
    const started = Date.now();
    while ((await keys()).includes(key)) {
      if (Date.now() - started > 5000) throw new Error('object still there');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    s3 = await LoopbackS3.start();
    client = s3.client;
    t = await RecordsTestApp.start('records_files_s3', {
      VAULT_PLANS_FILE: writePlansFile({ free: { 'vault.maxUploadMBs': '8' } }),
      ...s3.env(),
    });
  });
  beforeEach(async () => {
    // a caller per test: the plan limits the vaults of one owner
    owner = await t.caller('tenant-a', 'sam');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
  });
  afterAll(async () => {
    await t?.stop();
    await s3?.stop();
  });

  it('uploads in several parts, downloads whole and by range, and deletes the object', async () => {
    const bytes = randomBytes(6 * MiB + 123);
    const created = await upload(t, owner, vaultId, recordId, {
      bytes,
      meta: meta('big.bin'),
      headers: { 'x-checksum-sha256': sha256(bytes) },
    }).expect(201);
    expect(created.body).toMatchObject({ fileName: 'big.bin', fileSize: bytes.length });
    const [row] = await t.sql<{ storage_key: string }>('SELECT storage_key FROM record_files WHERE id = $1', [created.body.id]);
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: row.storage_key }));
    // stored encrypted: the object is the age payload, 16 bytes of tag per 64 KiB chunk longer
    expect(head.ContentLength).toBe(sealedSize(bytes.length));

    const whole = await binary(t.get(owner, `${filesPath(vaultId, recordId)}/big.bin`)).expect(200);
    expect(whole.headers['etag']).toBe(`"${sha256(bytes)}"`);
    expect(whole.headers['content-length']).toBe(String(bytes.length));
    expect(Buffer.compare(whole.body as Buffer, bytes)).toBe(0);
    const part = await binary(
      t.get(owner, `${filesPath(vaultId, recordId)}/big.bin`).set('Range', 'bytes=5242870-5242889'),
    ).expect(206);
    expect(Buffer.compare(part.body as Buffer, bytes.subarray(5242870, 5242890))).toBe(0);

    await t.delete(owner, `${filesPath(vaultId, recordId)}/big.bin`).expect(200);
    // the file waits in the trash with its object; purged, the object goes
    expect(await keys()).toContain(row.storage_key);
    await t.delete(owner, `/trash/item-id/${created.body.id}`).expect(200);
    await objectGone(row.storage_key);
  });

  it('leaves no object after an oversize upload or a checksum mismatch', async () => {
    const before = await keys();
    const big = await upload(t, owner, vaultId, recordId, { bytes: randomBytes(8 * MiB + 100 * 1024), meta: meta('over.bin') });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const bad = await upload(t, owner, vaultId, recordId, {
      meta: meta('bad.bin'),
      headers: { 'x-checksum-sha256': sha256(Buffer.from('other')) },
    }).expect(400);
    expect(bad.body.code).toBe('checksum_mismatch');
    expect(await keys()).toEqual(before);
    expect(await t.sql('SELECT 1 FROM record_files WHERE record_id = $1', [recordId])).toEqual([]);
    expect(await t.sql('SELECT 1 FROM file_purges')).toEqual([]);
  });

  it('answers 404 not_found when the object is gone but the row remains', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('gone.pdf') }).expect(201);
    const [row] = await t.sql<{ storage_key: string }>('SELECT storage_key FROM record_files WHERE record_id = $1', [recordId]);
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: row.storage_key }));
    const res = await t.get(owner, `${filesPath(vaultId, recordId)}/gone.pdf`).expect(404);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('keeps the objects of a deleted record while it is in the trash and removes them once it is purged', async () => {
    await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf') }).expect(201);
    const [row] = await t.sql<{ storage_key: string }>('SELECT storage_key FROM record_files WHERE record_id = $1', [recordId]);
    expect(await keys()).toContain(row.storage_key);
    await t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
    expect(await keys()).toContain(row.storage_key);
    await t.delete(owner, `/trash/item-id/${recordId}`).expect(200);
    await objectGone(row.storage_key);
  });
});
