import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import type { FileStorage } from '../src/capabilities/storage/file-storage';
import { FsFileStorage } from '../src/capabilities/storage/fs-file-storage';
import { knownKeys, runStorageAudit } from '../src/capabilities/storage/storage-audit.command';
import { auditStorage } from '../src/capabilities/storage/storage-audit';
import { storageFromEnv } from '../src/capabilities/storage/storage.module';
import { FilesEnv } from '../src/capabilities/storage/storage.env';
import { loadEnv } from '@vault/platform/config';
import { eventually, meta, upload } from './files-support';
import { LOOPBACK_S3_BUCKET, LoopbackS3 } from '@vault/platform/testing/s3';
import { RecordsTestApp } from './support';

const run = promisify(execFile);
/** Debian's awscli (.ci/run installs it): a client of the loopback S3 we did not write. */
const AWS = process.env['AWS_CLI_BIN'] ?? '/usr/bin/aws';

/**
 * Runs the storage audit command (main.js storage-audit) in this process with `env`,
 * returning its JSON report and exit code.
 */
async function auditCommand(env: Record<string, string>) {
  const saved = { ...process.env };
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  Object.assign(process.env, env);
  process.stdout.write = ((chunk: string) => (out.push(chunk), true)) as typeof process.stdout.write;
  try {
    await runStorageAudit();
  } finally {
    process.stdout.write = write;
    process.env = saved;
  }
  const code = process.exitCode;
  process.exitCode = 0;
  return { report: JSON.parse(out.join('')), code };
}

/** Uploads two files sharing bytes and a second version: the keys of the vault's 2 blobs. */
async function seed(t: RecordsTestApp) {
  const owner = await t.caller('tenant-a');
  const vaultId = await t.createVault(owner);
  const recordId = await t.createRecord(owner, vaultId);
  const bytes = randomBytes(1500);
  await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf'), bytes }).expect(201);
  await upload(t, owner, vaultId, recordId, { meta: meta('b.pdf'), bytes }).expect(201);
  await upload(t, owner, vaultId, recordId, { meta: meta('a.pdf', { replace: 'true' }) }).expect(201);
  await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0);
  const blobs = await t.sql<{ storage_key: string }>('SELECT storage_key FROM blobs WHERE vault_id = $1 ORDER BY 1', [vaultId]);
  return blobs.map((b) => b.storage_key);
}

describe('storage audit', () => {
  describe('on the loopback S3, listed with awscli', () => {
    // each awscli run starts a Python interpreter and loads botocore: seconds apiece on a loaded machine
    jest.setTimeout(120_000);
    let s3: LoopbackS3;
    let t: RecordsTestApp;
    let ds: DataSource;
    const aws = (...args: string[]) =>
      run(AWS, ['--endpoint-url', s3.endpoint, '--region', 'us-east-1', 's3', ...args], { env: { ...process.env, ...s3.env() } });

    beforeAll(async () => {
      s3 = await LoopbackS3.start();
      t = await RecordsTestApp.start('records_storage_audit_s3', s3.env());
      ds = await new DataSource({ type: 'postgres', url: t.db.url }).initialize();
    });
    afterAll(async () => {
      await ds?.destroy();
      await t?.stop();
      await s3?.stop();
    });

    it('finds nothing to report, then orphans both ways, as awscli sees the bucket', async () => {
      const keys = await seed(t);
      const env = { ...s3.env(), DATABASE_URL: t.db.url };
      expect(await auditCommand(env)).toEqual({
        code: 0,
        report: { orphanObjects: [], missingObjects: [], storedKeys: 2, blobs: 2 },
      });
      const listed = (await aws('ls', `s3://${LOOPBACK_S3_BUCKET}/`)).stdout;
      expect(
        listed
          .trim()
          .split('\n')
          .map((l) => l.trim().split(/\s+/).pop())
          .sort(),
      ).toEqual(keys);

      // an object nobody knows, put by awscli; a blob's object removed by awscli
      const stray = randomUUID();
      const file = join(mkdtempSync(join(tmpdir(), 'audit-')), 'stray.bin');
      writeFileSync(file, randomBytes(10));
      await aws('cp', file, `s3://${LOOPBACK_S3_BUCKET}/${stray}`);
      await aws('rm', `s3://${LOOPBACK_S3_BUCKET}/${keys[0]}`);
      const { report, code } = await auditCommand(env);
      expect(code).toBe(1);
      expect(report).toMatchObject({ orphanObjects: [stray], missingObjects: [keys[0]] });
    });

    it('removes the objects of blobs whose last reference is purged (rows deleted as the trash purger does)', async () => {
      const keys = await seed(t);
      const listed = async () => (await aws('ls', `s3://${LOOPBACK_S3_BUCKET}/`)).stdout;
      expect(await listed()).toContain(keys[1]);
      await t.sql(`DELETE FROM record_files WHERE storage_key = ANY($1)`, [keys]);
      expect(await t.sql('SELECT 1 FROM blobs WHERE storage_key = ANY($1)', [keys])).toEqual([]);
      await eventually(async () => (await t.sql('SELECT 1 FROM file_purges')).length === 0, 10_000);
      const after = await listed();
      for (const key of keys) expect(after).not.toContain(key);
    });
  });

  describe('on the filesystem', () => {
    let dir: string;
    let t: RecordsTestApp;
    let ds: DataSource;
    let storage: FileStorage;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'audit-fs-'));
      const env = { FILE_STORAGE: 'fs', FILE_STORAGE_DIR: dir, FILE_PURGE_INTERVAL_MS: '100' };
      t = await RecordsTestApp.start('records_storage_audit_fs', env);
      ds = await new DataSource({ type: 'postgres', url: t.db.url }).initialize();
      storage = storageFromEnv(loadEnv(FilesEnv, env));
    });
    afterAll(async () => {
      await ds?.destroy();
      await t?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reports stray objects and leftovers of writes, and blobs without bytes', async () => {
      const keys = await seed(t);
      expect(await auditStorage(storage, await knownKeys(ds))).toEqual({
        orphanObjects: [],
        missingObjects: [],
        storedKeys: 2,
        blobs: 2,
      });
      const stray = randomUUID();
      const leftover = randomUUID();
      mkdirSync(join(dir, 'objects', stray.slice(0, 2)), { recursive: true });
      writeFileSync(join(dir, 'objects', stray.slice(0, 2), stray), 'x');
      writeFileSync(join(dir, 'tmp', `${leftover}.part`), 'x');
      await new FsFileStorage(dir).remove(keys[1]);
      const report = await auditStorage(storage, await knownKeys(ds));
      expect(report.orphanObjects).toEqual([stray, leftover].sort());
      expect(report.missingObjects).toEqual([keys[1]]);
    });
  });
});
