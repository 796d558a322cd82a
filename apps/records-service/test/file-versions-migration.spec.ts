import { randomUUID } from 'node:crypto';
import { createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/migrations';
import { FileVersions1764000000000 } from '../src/migrations/1764000000000-file-versions';

/** The migration to blobs and versions converts the files stored before it. */
describe('migration 1764000000000-file-versions', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const mine = MIGRATIONS.indexOf(FileVersions1764000000000);

  beforeAll(async () => {
    db = await createTestDatabase('records_versions_migration');
    ds = await new DataSource({ type: 'postgres', url: db.url, migrations: MIGRATIONS.slice(0, mine) }).initialize();
    await ds.runMigrations({ transaction: 'each' });
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('makes every file version 1 of itself on the blob of its vault and bytes, keeping the keys', async () => {
    const vault = randomUUID();
    const record = randomUUID();
    await ds.query(`INSERT INTO vaults (id, tenant_id, name, type, created_by) VALUES ($1, 't', 'V', 'individual', 'u')`, [
      vault,
    ]);
    const [type] = await ds.query(`SELECT id FROM record_types LIMIT 1`);
    const [subtype] = await ds.query(`SELECT id FROM record_subtypes WHERE record_type_id = $1 LIMIT 1`, [type.id]);
    await ds.query(
      `INSERT INTO records (id, vault_id, tenant_id, name, description, record_type_id, record_subtype_id, created_by,
         last_modified_by) VALUES ($1, $2, 't', 'R', '', $3, $4, 'u', 'u')`,
      [record, vault, type.id, subtype.id],
    );
    const file = (name: string, key: string, sha: string, at: string) =>
      ds.query(
        `INSERT INTO record_files (record_id, tenant_id, file_name, correlation_id, file_type, media_type, storage_key,
           size, sha256, uploader, uploader_open_id, created_at)
         VALUES ($1, 't', $2, 'c', 'document', 'application/pdf', $3, 10, $4, 'Ann', 'ann', $5)`,
        [record, name, key, sha, at],
      );
    await file('a.pdf', 'key-a', 'a'.repeat(64), '2026-01-01');
    await file('b.pdf', 'key-b', 'b'.repeat(64), '2026-01-02');
    await file('copy-of-a.pdf', 'key-a2', 'a'.repeat(64), '2026-01-03');

    await new FileVersions1764000000000().up(ds.createQueryRunner());

    const blobs = await ds.query(`SELECT storage_key, ref_count, vault_id FROM blobs ORDER BY storage_key`);
    expect(blobs).toEqual([
      { storage_key: 'key-a', ref_count: 2, vault_id: vault },
      { storage_key: 'key-b', ref_count: 1, vault_id: vault },
    ]);
    const versions = await ds.query(
      `SELECT f.file_name, f.storage_key, v.number, v.current, v.created_by, b.storage_key AS blob_key
       FROM file_versions v JOIN record_files f ON f.id = v.file_id JOIN blobs b ON b.id = v.blob_id ORDER BY f.file_name`,
    );
    expect(versions).toEqual([
      { file_name: 'a.pdf', storage_key: 'key-a', number: 1, current: true, created_by: 'ann', blob_key: 'key-a' },
      { file_name: 'b.pdf', storage_key: 'key-b', number: 1, current: true, created_by: 'ann', blob_key: 'key-b' },
      { file_name: 'copy-of-a.pdf', storage_key: 'key-a', number: 1, current: true, created_by: 'ann', blob_key: 'key-a' },
    ]);
    // the duplicate's own object is queued for removal; no kept key is
    expect(await ds.query(`SELECT storage_key FROM file_purges`)).toEqual([{ storage_key: 'key-a2' }]);
  });
});
