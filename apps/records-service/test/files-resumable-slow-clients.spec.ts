import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import type { Test } from 'supertest';
import { DataSource } from 'typeorm';
import { ResumableUploadService } from '../src/features/files/resumable/resumable-upload.service';
import { eventually, meta } from './files-support';
import { uploadsPath } from './resumable-support';
import { slowPatch, type SlowPatch } from './slow-upload-clients';
import { Caller, RecordsTestApp } from './support';

const metadataOf = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

/** A caller with a vault and record of its own, and its tus requests on that record. */
class Uploader {
  private files = 0;
  private constructor(
    private readonly t: RecordsTestApp,
    readonly caller: Caller,
    private readonly base: string,
  ) {}

  static async start(t: RecordsTestApp, tenantId: string): Promise<Uploader> {
    const caller = await t.caller(tenantId);
    const vaultId = await t.createVault(caller);
    const recordId = await t.createRecord(caller, vaultId);
    return new Uploader(t, caller, uploadsPath(vaultId, recordId));
  }

  private as(req: Test): Test {
    return req.set('Authorization', `Bearer ${this.caller.token}`).set('Tus-Resumable', '1.0.0');
  }

  create(length: number): Test {
    return this.as(this.t.http().post(this.base))
      .set('Upload-Length', String(length))
      .set('Upload-Metadata', metadataOf(meta(`f-${++this.files}.bin`)));
  }

  /** A new upload's path (Location). */
  async open(length: number): Promise<string> {
    return (await this.create(length).expect(201)).headers['location'] as string;
  }

  head(path: string): Test {
    return this.as(this.t.http().head(path));
  }

  delete(path: string): Test {
    return this.as(this.t.http().delete(path));
  }

  patch(path: string, bytes: Buffer, offset = 0): Test {
    return this.as(this.t.http().patch(path))
      .set('Upload-Offset', String(offset))
      .set('Content-Type', 'application/offset+octet-stream')
      .send(bytes);
  }

  /** A PATCH sending `trickle` bytes every 100 ms of a chunk that never ends. */
  slow(path: string, trickle: number): SlowPatch {
    return slowPatch(this.t.app, this.caller, path, { length: 1 << 20, trickle, everyMs: 100 });
  }
}

/** A request left without an answer this long is a stall (the ones measured answer in well under a second). */
const STALL_MS = 30_000;

const expectTooMany = (res: { status: number; headers: Record<string, string>; body: unknown }, retryAfter: string) => {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.headers['retry-after']).toBe(retryAfter);
  expect(res.headers['tus-resumable']).toBe('1.0.0');
  expect(res.body).toMatchObject({ status: 429, code: 'too_many_requests', requestId: expect.any(String) });
};

/**
 * Slow clients (issue 29): chunks that arrive slowly hold no database connection and cannot
 * stall anyone else's uploads; concurrent chunks and open uploads are capped per caller and
 * per tenant; a chunk slower than the minimum body rate ends with 408, its bytes kept.
 */
describe('resumable uploads, slow clients', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'resumable-slow-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('with 50 slow PATCHes open', () => {
    let t: RecordsTestApp;
    const slow: SlowPatch[] = [];

    beforeAll(async () => {
      t = await RecordsTestApp.start('records_tus_slow', {
        FILE_STORAGE: 'fs',
        FILE_STORAGE_DIR: dir,
        TUS_MAX_WRITES_PER_CALLER: '5',
        TUS_MAX_WRITES_PER_TENANT: '10',
        TUS_MIN_BODY_BYTES_PER_SECOND: '64',
        TUS_BODY_RATE_GRACE_MS: '5000',
      });
    });
    afterAll(async () => {
      slow.forEach((s) => s.stop());
      await t?.stop();
    });

    /** The service's TypeORM pool (pg's Pool: TypeORM's PostgreSQL driver keeps it as `master`). */
    const poolOf = () => (t.app.get(DataSource).driver as unknown as { master: Pool }).master;

    /**
     * Rounds of POST, HEAD, PATCH (half the upload) and DELETE by each of `callers` at once;
     * how many were answered, each with its status. A request left without an answer for
     * STALL_MS fails: what slow chunks used to cause (no answer at all while they stream).
     */
    const exercise = async (callers: Uploader[], rounds: number): Promise<number> => {
      let answered = 0;
      const answer = async (req: Test, status: number) => {
        const res = await req.timeout(STALL_MS);
        expect(res.status).toBe(status);
        answered++;
        return res;
      };
      const bytes = Buffer.alloc(4096, 1);
      await Promise.all(
        callers.map(async (u) => {
          for (let round = 0; round < rounds; round++) {
            const path = (await answer(u.create(2 * bytes.length), 201)).headers['location'] as string;
            await answer(u.head(path), 200);
            await answer(u.patch(path, bytes), 204);
            await answer(u.delete(path), 204);
          }
        }),
      );
      return answered;
    };

    /**
     * What makes every other caller's requests independent of the slow chunks, asserted as
     * such: a streaming chunk holds no connection, of the service's pool or the database's.
     * The latency goal (p99 under 1 s with 50 slow chunks open) is measured by
     * bench/files/slow-clients.mjs, not here: a timed bound in a suite that shares the
     * machine with the others fails on the machine's load, not on the service.
     */
    it("answers every other caller's POST, HEAD, PATCH and DELETE while 50 slow chunks hold no connection", async () => {
      const others = await Promise.all(['tenant-x', 'tenant-y', 'tenant-z'].map((tenant) => Uploader.start(t, tenant)));
      expect(await exercise(others, 2)).toBe(24);

      // 10 callers of 5 tenants, 5 chunks each at 640 bytes/s (above the 64 bytes/s minimum)
      const holders = await Promise.all(Array.from({ length: 10 }, (_, i) => Uploader.start(t, `tenant-slow-${i % 5}`)));
      for (const h of holders) {
        const paths = await Promise.all(Array.from({ length: 5 }, () => h.open(1 << 20)));
        slow.push(...paths.map((p) => h.slow(p, 64)));
      }
      const service = t.app.get(ResumableUploadService);
      await eventually(async () => service.locksHeld === 50, 60_000);

      // while only the slow chunks stream, the pool lends no connection (background work
      // borrows one now and then: the least of ten looks over a second is none) ...
      const pool = poolOf();
      const lent: number[] = [];
      for (let look = 0; look < 10; look++) {
        lent.push(pool.totalCount - pool.idleCount);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(Math.min(...lent)).toBe(0);
      // ... and the database has far fewer sessions than there are chunks (pool, lock sessions, listeners)
      const [{ sessions }] = await t.sql<{ sessions: number }>(
        'SELECT count(*)::int AS sessions FROM pg_stat_activity WHERE datname = current_database()',
      );
      expect(sessions).toBeLessThan(30);

      // every other caller is answered, and none of its requests ever waits for a connection
      let waiting = 0;
      const watch = setInterval(() => (waiting = Math.max(waiting, pool.waitingCount)), 5);
      try {
        expect(await exercise(others, 12)).toBe(144);
      } finally {
        clearInterval(watch);
      }
      expect(waiting).toBe(0);
      // the slow chunks were never cut off meanwhile: they are still being received
      expect(slow.filter((s) => s.answered())).toEqual([]);
      expect(service.locksHeld).toBe(50);

      // once they end, their locks and slots go
      slow.splice(0).forEach((s) => s.stop());
      await eventually(async () => service.locksHeld === 0, 30_000);
    }, 180_000);
  });

  describe('caps and the minimum body rate', () => {
    let t: RecordsTestApp;
    const slow: SlowPatch[] = [];

    beforeAll(async () => {
      t = await RecordsTestApp.start('records_tus_caps', {
        FILE_STORAGE: 'fs',
        FILE_STORAGE_DIR: dir,
        TUS_MAX_WRITES_PER_CALLER: '2',
        TUS_MAX_WRITES_PER_TENANT: '3',
        TUS_WRITES_RETRY_AFTER_SECONDS: '7',
        TUS_MAX_OPEN_UPLOADS_PER_TENANT: '5',
        TUS_MIN_BODY_BYTES_PER_SECOND: '1000',
        TUS_BODY_RATE_GRACE_MS: '1000',
      });
    });
    afterEach(async () => {
      slow.splice(0).forEach((s) => s.stop());
      // the stopped chunks end before the next test counts locks (or the app stops under them)
      const service = t.app.get(ResumableUploadService);
      await eventually(async () => service.locksHeld === 0, 30_000);
    });
    afterAll(async () => t?.stop());

    const offsetOf = async (path: string) =>
      Number(
        (
          await t.sql<{ upload_offset: string }>('SELECT upload_offset FROM resumable_uploads WHERE id = $1', [
            path.split('/').pop(),
          ])
        )[0].upload_offset,
      );

    it('refuses a chunk beyond the caller cap, then the tenant cap, with 429 and Retry-After; other tenants and freed slots go on', async () => {
      const [a, b] = [await Uploader.start(t, 'tenant-caps'), await Uploader.start(t, 'tenant-caps')];
      const other = await Uploader.start(t, 'tenant-other');
      const [a1, a2, a3] = [await a.open(1 << 20), await a.open(1 << 20), await a.open(8)];
      const [b1, b2] = [await b.open(1 << 20), await b.open(8)];
      slow.push(a.slow(a1, 256), a.slow(a2, 256));
      const service = t.app.get(ResumableUploadService);
      await eventually(async () => service.locksHeld === 2, 30_000);

      const byCaller = await a.patch(a3, Buffer.alloc(4));
      expectTooMany(byCaller, '7');
      expect(byCaller.body.detail).toMatch(/one caller/);
      expect(await offsetOf(a3)).toBe(0);

      slow.push(b.slow(b1, 256));
      await eventually(async () => service.locksHeld === 3, 30_000);
      const byTenant = await b.patch(b2, Buffer.alloc(4));
      expectTooMany(byTenant, '7');
      expect(byTenant.body.detail).toMatch(/one tenant/);

      const elsewhere = await other.open(8);
      await other.patch(elsewhere, Buffer.alloc(4)).expect(204);

      // a slot is freed when its chunk's connection ends
      slow.shift()?.stop();
      await eventually(async () => (await a.patch(a3, Buffer.alloc(4))).status === 204, 30_000);
    }, 90_000);

    it("refuses a creation beyond the tenant's open uploads with 429 and Retry-After; another tenant still creates", async () => {
      const [x, y] = [await Uploader.start(t, 'tenant-open'), await Uploader.start(t, 'tenant-open')];
      for (const u of [x, x, y, y, y]) await u.open(4);
      const refused = await y.create(4);
      expectTooMany(refused, '60');
      expect(refused.body.detail).toMatch(/tenant/);
      await (await Uploader.start(t, 'tenant-open-2')).create(4).expect(201);
    });

    it('answers 408 to a chunk whose body stalls, keeps the bytes received; the client resumes from Upload-Offset', async () => {
      const u = await Uploader.start(t, 'tenant-stall');
      const path = await u.open(16_384);
      const stalled = slowPatch(t.app, u.caller, path, { length: 16_384, first: 8192, trickle: 0, everyMs: 100 });
      slow.push(stalled);
      const answer = await stalled.answer;
      expect(answer.status).toBe(408);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.headers['upload-offset']).toBe('8192');
      expect(answer.headers['connection']).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ status: 408, code: 'upload_body_too_slow' });
      expect(await offsetOf(path)).toBe(8192);

      const head = await u.head(path).expect(200);
      expect(head.headers['upload-offset']).toBe('8192');
      const done = await u.patch(path, Buffer.alloc(4096, 7), 8192).expect(204);
      expect(done.headers['upload-offset']).toBe('12288');
    }, 60_000);
  });
});
