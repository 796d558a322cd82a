import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@vault/platform/config';
import type { ServiceProcess } from '@vault/platform/testing';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { knownKeys } from '../src/capabilities/storage/storage-audit.command';
import { auditStorage } from '../src/capabilities/storage/storage-audit';
import { storageFromEnv } from '../src/capabilities/storage/storage.module';
import { FilesEnv } from '../src/capabilities/storage/storage.env';
import { LoopbackS3 } from '@vault/platform/testing/s3';
import { waitFor } from './activity-log.harness';
import { filesPath, meta, sha256 } from './files-support';
import { portOf, RecordsProcesses } from './records-process';
import type { Caller } from './support';

const BOUNDARY = 'kill-versions-boundary';

/** Whether `text` begins with `prefix`, case and spacing aside. */
const likeText = (text: string, prefix: string) =>
  text.replace(/\s+/g, ' ').trim().toLowerCase().startsWith(prefix.toLowerCase());
const MiB = 1024 * 1024;

interface Version {
  id: string;
  number: number;
  sha256: string;
  current: boolean;
}

/** A replace upload (multipart, `replace=true`) sent by hand, optionally holding back the body's second half. */
function sendUpload(p: ServiceProcess, c: Caller, path: string, bytes: Buffer, holdBack: boolean) {
  const query = new URLSearchParams(meta('deed.pdf', { replace: 'true' }));
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="deed.pdf"\r\n` +
      `Content-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const req = request({
    host: '127.0.0.1',
    port: portOf(p),
    method: 'POST',
    path: `/api/v1${path}?${query}`,
    headers: {
      authorization: `Bearer ${c.token}`,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(head.length + bytes.length + tail.length),
    },
  });
  const answer = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    // the process was killed: no answer
    req.on('error', () => resolve(0));
  });
  req.write(head);
  if (holdBack) {
    req.write(bytes.subarray(0, bytes.length / 2));
  } else {
    req.write(bytes);
    req.end(tail);
  }
  return answer;
}

/**
 * A new file version written by records-service killed with SIGKILL (no shutdown hook runs)
 * at several points of a multipart `replace=true` upload and of a version restore: mid-body,
 * with the bytes stored but the commit not begun, in the commit's transaction (rows written,
 * not committed), and racing the commit. The points are reached for real: the test holds a
 * PostgreSQL lock the service's next statement needs, sees it wait (pg_stat_activity), kills
 * it and lets go. After a restart: the versions are exactly the old ones or the old ones plus
 * the new (never half), every blob's ref_count equals the versions pointing at it, no row
 * points at missing bytes (the storage audit), and nothing in storage is unknown; once the
 * upload grace period has passed, the purge leaves only the blobs' objects.
 *
 * `store` is the folder (every point) or the loopback S3, where an upload of 10 MiB (the free
 * plan's largest) is cut with a 5 MiB part sent. On S3 only the points where the store's
 * state differs run: mid-body (a multipart upload left open) and bytes stored before the
 * commit (a whole object under a key no row names, which the purge deletes). The commit's
 * points write nothing to the store (their bytes are stored as in the second point; a
 * restore stores none) and end in PostgreSQL alone, the same on both stores: they run on
 * the folder. One spec file per store (file-versions-kill*.spec.ts), run side by side.
 */
export function describeVersionsKill(store: 'fs' | 's3'): void {
  describe(`file versions written while records-service is killed -9 (${store} store)`, () => versionsKill(store));
}

function versionsKill(store: 'fs' | 's3'): void {
  let procs: RecordsProcesses;
  let dir: string;
  let s3: LoopbackS3 | undefined;
  let storeEnv: Record<string, string>;
  /** On S3, large enough that half the body fills an S3 part (S3_PART_SIZE_MB=5). */
  const SIZE = store === 's3' ? 10 * MiB : 3 * MiB;
  let ds: DataSource;
  let locker: Client;
  let p: ServiceProcess;
  let owner: Caller;
  let files: string;
  let fileId: string;

  const storage = () => storageFromEnv(loadEnv(FilesEnv, storeEnv));
  /** Keys the store holds something of (objects; on the folder also `.part` files). */
  const storedKeys = async () => (await auditStorage(storage(), await knownKeys(ds))).storedKeys;
  const versions = async (): Promise<Version[]> =>
    (await procs.expect(200, p, owner, 'GET', `${files}/deed.pdf/versions`)).body.map((v: Version) => ({
      id: v.id,
      number: v.number,
      sha256: v.sha256,
      current: v.current,
    }));
  /** The bytes `GET {files}/deed.pdf` sends, hashed. */
  const downloaded = async () => {
    const res = await fetch(`${p.base}/api/v1${files}/deed.pdf`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(res.status).toBe(200);
    return sha256(Buffer.from(await res.arrayBuffer()));
  };
  /** The folder store's partial files, being written. */
  const partFiles = () => readdirSync(join(dir, 'tmp')).filter((n) => n.endsWith('.part'));

  /** Holds `lockSql` in a transaction of the test's own until `release`. */
  const hold = async (lockSql: string, params: unknown[] = []) => {
    await locker.query('BEGIN');
    await locker.query(lockSql, params);
    return () => locker.query('ROLLBACK');
  };
  /** Waits until a statement of the service matching `pattern` waits for a lock (what waits, if not). */
  const blockedOn = async (pattern: string) => {
    const waiting = () =>
      procs.sql<{ query: string; wait_event_type: string | null; state: string }>(
        `SELECT query, wait_event_type, state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
    await waitFor(
      async () => (await waiting()).some((a) => a.wait_event_type === 'Lock' && likeText(a.query, pattern)),
      30_000,
      `a statement like ${pattern} waiting for a lock`,
    ).catch(async (err) => {
      throw new Error(`${err.message}: ${JSON.stringify(await waiting())}`);
    });
  };

  const kill = async () => {
    await procs.stop(p, 'SIGKILL');
  };
  /**
   * Starts `action` while the test holds `lockSql`, waits until the service's statement
   * beginning with `statement` waits for that lock, runs `atPoint`, kills the process and
   * lets go. The action's outcome (the process gives none once killed).
   */
  const killWhileBlocked = async <T>(
    lockSql: string,
    params: unknown[],
    statement: string,
    action: () => Promise<T>,
    atPoint: () => Promise<void> | void = () => undefined,
  ): Promise<T> => {
    const release = await hold(lockSql, params);
    try {
      const outcome = action();
      await blockedOn(statement);
      await atPoint();
      await kill();
      return await outcome;
    } finally {
      await release();
    }
  };
  const OUTBOX_LOCK = 'LOCK TABLE outbox_events IN SHARE ROW EXCLUSIVE MODE';
  const OUTBOX_INSERT = 'INSERT INTO "outbox_events"';
  /** The tables the transaction waiting at its outbox insert has written rows of (uncommitted). */
  const writtenByWaiting = async () =>
    (
      await procs.sql<{ relname: string }>(
        `SELECT DISTINCT c.relname FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
           JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE a.datname = current_database() AND a.wait_event_type = 'Lock' AND a.query ILIKE 'INSERT INTO "outbox_events"%'
            AND l.granted AND l.mode = 'RowExclusiveLock' AND c.relkind = 'r'`,
      )
    ).map((r) => r.relname);
  const restart = async () => {
    p = await procs.start();
  };

  /**
   * What must hold after any crash: refcounts, rows and bytes agree; the file serves its
   * current version's bytes. Then the grace period of cut uploads passes: the purge removes
   * their bytes and the store holds exactly the blobs.
   */
  const expectConsistent = async () => {
    expect(
      await procs.sql(
        `SELECT b.id, b.ref_count, count(v.id)::int AS n FROM blobs b LEFT JOIN file_versions v ON v.blob_id = b.id
          GROUP BY b.id HAVING b.ref_count <> count(v.id)`,
      ),
    ).toEqual([]);
    // the file row is a copy of its current version's blob, and exactly one version is current
    expect(
      await procs.sql(
        `SELECT f.id FROM record_files f
           LEFT JOIN file_versions v ON v.file_id = f.id AND v.current
           LEFT JOIN blobs b ON b.id = v.blob_id
          WHERE b.id IS NULL OR b.storage_key <> f.storage_key OR b.sha256 <> f.sha256 OR b.size <> f.size`,
      ),
    ).toEqual([]);
    const before = await auditStorage(storage(), await knownKeys(ds));
    expect({ orphanObjects: before.orphanObjects, missingObjects: before.missingObjects }).toEqual({
      orphanObjects: [],
      missingObjects: [],
    });
    const current = (await versions()).find((v) => v.current);
    expect(await downloaded()).toBe(current?.sha256);

    // a day later: the removal each upload queued before writing is due
    await procs.sql(`UPDATE file_purges SET purge_after = now()`);
    await waitFor(async () => (await procs.sql('SELECT 1 FROM file_purges')).length === 0, 30_000, 'the purge queue drained');
    const [{ n: blobs }] = await procs.sql<{ n: number }>('SELECT count(*)::int AS n FROM blobs');
    expect(await auditStorage(storage(), await knownKeys(ds))).toEqual({
      orphanObjects: [],
      missingObjects: [],
      storedKeys: blobs,
      blobs,
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'versions-kill-'));
    if (store === 's3') s3 = await LoopbackS3.start();
    storeEnv = s3 ? s3.env() : { FILE_STORAGE: 'fs', FILE_STORAGE_DIR: dir };
    // the test's own S3 client (the audit) takes its credentials from the standard AWS chain
    if (s3)
      Object.assign(process.env, {
        AWS_ACCESS_KEY_ID: storeEnv['AWS_ACCESS_KEY_ID'],
        AWS_SECRET_ACCESS_KEY: storeEnv['AWS_SECRET_ACCESS_KEY'],
      });
    procs = await RecordsProcesses.create(`records_versions_kill_${store}`, {
      ...storeEnv,
      FILE_PURGE_INTERVAL_MS: '200',
      TRASH_PURGE_INTERVAL_MS: '3600000',
    });
    ds = await new DataSource({ type: 'postgres', url: procs.db.url }).initialize();
    locker = new Client({ connectionString: procs.db.url });
    await locker.connect();
    p = await procs.start();
    owner = await procs.caller();
    const vaultId = await procs.createVault(p, owner);
    const recordId = await procs.createRecord(p, owner, vaultId, 'Deeds');
    files = filesPath(vaultId, recordId);
    expect(await sendUpload(p, owner, files, randomBytes(SIZE), false)).toBe(201);
    expect(await sendUpload(p, owner, files, randomBytes(SIZE), false)).toBe(201);
    [{ id: fileId }] = await procs.sql<{ id: string }>(`SELECT id FROM record_files WHERE file_name = 'deed.pdf'`);
  }, 120_000);
  afterAll(async () => {
    await locker?.end();
    await ds?.destroy();
    await procs?.dispose();
    await s3?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('killed mid-body: the old versions stand, the partial bytes are purged', async () => {
    const old = await versions();
    const answer = sendUpload(p, owner, files, randomBytes(SIZE), true);
    // the upload queues its own removal before writing a byte; on the folder, bytes arrive in its .part file
    await waitFor(
      async () =>
        (await procs.sql('SELECT 1 FROM file_purges')).length > 0 &&
        (store === 's3' || partFiles().some((n) => statSync(join(dir, 'tmp', n)).size > 0)),
      30_000,
      'bytes being written',
    );
    // on S3, time for the first 5 MiB part of the half sent to reach the bucket
    if (store === 's3') await new Promise((r) => setTimeout(r, 1000));
    await kill();
    expect(await answer).toBe(0);
    await restart();
    expect(await versions()).toEqual(old);
    await expectConsistent();
  }, 120_000);

  it('killed with the bytes stored and the commit not begun: the old versions stand, the object is purged', async () => {
    const old = await versions();
    const objects = await storedKeys();
    const [{ vault_id: vaultId }] = await procs.sql<{ vault_id: string }>(
      'SELECT r.vault_id FROM record_files f JOIN records r ON r.id = f.record_id WHERE f.id = $1',
      [fileId],
    );
    const status = await killWhileBlocked(
      'SELECT 1 FROM vaults WHERE id = $1 FOR UPDATE',
      [vaultId],
      'SELECT',
      () => sendUpload(p, owner, files, randomBytes(SIZE), false),
      // every byte is durable under its key before the transaction starts
      async () => expect(await storedKeys()).toBe(objects + 1),
    );
    expect(status).toBe(0);
    await restart();
    expect(await versions()).toEqual(old);
    await expectConsistent();
  }, 120_000);

  /** The commit's points: PostgreSQL alone decides what remains (see describeVersionsKill). */
  const commitPoints = store === 'fs';

  /**
   * Kills the service while `action` waits on the outbox lock inside its commit, with rows of
   * each of `tables` written by it; after a restart the versions are as they were, whole.
   * Resolves with what `action` answered.
   */
  const killedInsideCommit = async <T>(action: (old: Version[]) => Promise<T>, tables: string[]): Promise<T> => {
    const old = await versions();
    const answer = await killWhileBlocked(
      OUTBOX_LOCK,
      [],
      OUTBOX_INSERT,
      () => action(old),
      async () => expect(await writtenByWaiting()).toEqual(expect.arrayContaining(tables)),
    );
    await restart();
    expect(await versions()).toEqual(old);
    await expectConsistent();
    return answer;
  };

  if (commitPoints)
    it('killed inside the commit (version, blob and file rows written, not committed): nothing of it remains', async () => {
      const status = await killedInsideCommit(
        () => sendUpload(p, owner, files, randomBytes(SIZE), false),
        ['blobs', 'file_purges', 'file_versions', 'record_files'],
      );
      expect(status).toBe(0);
    }, 120_000);

  if (commitPoints)
    it('a restore killed inside its commit leaves the versions as they were', async () => {
      const answer = await killedInsideCommit(
        (old) => {
          const first = old.find((v) => v.number === 1);
          return procs.call(p, owner, 'POST', `${files}/deed.pdf/versions/version-id/${first?.id}/restore`).catch(() => null);
        },
        ['blobs', 'file_versions', 'record_files'],
      );
      expect(answer).toBeNull();
    }, 120_000);

  if (commitPoints)
    it('killed as the commit goes through: the old versions or the old ones plus the new, whole', async () => {
      const old = await versions();
      const bytes = randomBytes(SIZE);
      const release = await hold(OUTBOX_LOCK);
      let status: number;
      try {
        const answer = sendUpload(p, owner, files, bytes, false);
        await blockedOn(OUTBOX_INSERT);
        // the transaction goes on as the process dies
        await Promise.all([release(), kill()]);
        status = await answer;
      } finally {
        await release();
      }
      await restart();
      const now = await versions();
      const top = old[0].number + 1;
      const whole = [
        { id: expect.any(String), number: top, sha256: sha256(bytes), current: true },
        ...old.map((v) => ({ ...v, current: false })),
      ];
      if (now.length === old.length) {
        expect(now).toEqual(old);
        expect(status).toBe(0);
      } else {
        expect(now).toEqual(whole);
      }
      await expectConsistent();
    }, 120_000);

  it('after the crashes, a replace and a restore go through whole', async () => {
    const old = await versions();
    const bytes = randomBytes(SIZE);
    expect(await sendUpload(p, owner, files, bytes, false)).toBe(201);
    const first = old.find((v) => v.number === 1);
    const restored = await procs.expect(201, p, owner, 'POST', `${files}/deed.pdf/versions/version-id/${first?.id}/restore`);
    expect(restored.body).toMatchObject({ number: old[0].number + 2, sha256: first?.sha256, current: true });
    const now = await versions();
    expect(now.map((v) => v.number)).toEqual([old[0].number + 2, old[0].number + 1, ...old.map((v) => v.number)]);
    expect(now[1]).toMatchObject({ sha256: sha256(bytes), current: false });
    await expectConsistent();
  }, 120_000);
}
