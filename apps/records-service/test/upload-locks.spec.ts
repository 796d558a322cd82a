import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { ProblemException } from '@vault/platform/errors';
import { createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { Client } from 'pg';
import { LockSessions } from '../src/features/files/resumable/lock-sessions';
import { PgUploadLocker } from '../src/features/files/resumable/pg-upload-locker';

/**
 * Upload locks across instances: two lockers on one database stand for two
 * records-service replicas serving requests of the same tus upload.
 */
describe('resumable upload locks shared by every instance', () => {
  let db: TestDatabase;
  let a: PgUploadLocker;
  let b: PgUploadLocker;
  const options = (url: string) => ({ databaseUrl: url, maxLocks: 4, acquireTimeoutMs: 1500, retryMs: 20 });

  beforeAll(async () => {
    db = await createTestDatabase('records_upload_locks');
    a = new PgUploadLocker(options(db.url));
    b = new PgUploadLocker(options(db.url));
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  const never = new AbortController().signal;

  it('asks the holder on the other instance to let go, then takes the lock', async () => {
    const id = randomUUID();
    const held = a.newLock(id);
    const events: string[] = [];
    await held.lock(never, async () => {
      events.push('release asked');
      // what the tus server does: the stalled request ends and unlocks
      await held.unlock();
    });
    const next = b.newLock(id);
    await next.lock(never, () => undefined);
    events.push('taken');
    expect(events).toEqual(['release asked', 'taken']);
    await next.unlock();
  });

  it('answers 423 upload_locked when the holder does not let go in time; the lock is free after it unlocks', async () => {
    const id = randomUUID();
    const held = a.newLock(id);
    await held.lock(never, () => undefined);
    const started = Date.now();
    const refused = await b
      .newLock(id)
      .lock(never, () => undefined)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemException);
    expect((refused as ProblemException).getStatus()).toBe(423);
    expect((refused as ProblemException).code).toBe('upload_locked');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    await held.unlock();
    const again = b.newLock(id);
    await again.lock(never, () => undefined);
    await again.unlock();
  });

  it('stops waiting when the waiting request is cancelled', async () => {
    const id = randomUUID();
    const held = a.newLock(id);
    await held.lock(never, () => undefined);
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 100);
    const started = Date.now();
    await expect(b.newLock(id).lock(cancel.signal, () => undefined)).rejects.toBeInstanceOf(ProblemException);
    expect(Date.now() - started).toBeLessThan(1000);
    await held.unlock();
  });

  it('locks uploads independently, and one instance excludes its own second request too', async () => {
    const [x, y] = [randomUUID(), randomUUID()];
    const lx = a.newLock(x);
    const ly = b.newLock(y);
    await lx.lock(never, () => undefined);
    await ly.lock(never, () => undefined);
    // a second request for x on the same instance waits like one on another instance
    const asked: string[] = [];
    const release = lx.unlock.bind(lx);
    await lx.unlock();
    await lx.lock(never, async () => {
      asked.push('x');
      await release();
    });
    const same = a.newLock(x);
    await same.lock(never, () => undefined);
    expect(asked).toEqual(['x']);
    await same.unlock();
    await ly.unlock();
  });

  it("commits a statement and releases the lock in one go: the next holder sees the change, the request's own unlock does nothing", async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query('CREATE TABLE IF NOT EXISTS moves (id text PRIMARY KEY, at bigint NOT NULL)');
      const id = randomUUID();
      await sql.query('INSERT INTO moves VALUES ($1, 0)', [id]);
      const held = a.newLock(id);
      await held.lock(never, () => undefined);
      const moved = await a.commitThenUnlock(id, `UPDATE moves SET at = 8 WHERE id = '${id}' AND at = 0`);
      expect(moved).toBe(1);
      // the lock is free at once, for another instance, with the update committed
      const next = b.newLock(id);
      await next.lock(never, () => undefined);
      expect((await sql.query('SELECT at FROM moves WHERE id = $1', [id])).rows[0].at).toBe('8');
      // the first request's unlock, which the tus server still calls, leaves the new holder's lock alone
      await held.unlock();
      await expect(a.newLock(id).lock(never, () => undefined)).rejects.toBeInstanceOf(ProblemException);
      // an offset moved meanwhile: nothing recorded (the lock ends all the same); nothing to run without the lock
      expect(await b.commitThenUnlock(id, `UPDATE moves SET at = 16 WHERE id = '${id}' AND at = 0`)).toBe(0);
      expect(await b.commitThenUnlock(id, `UPDATE moves SET at = 16 WHERE id = '${id}'`)).toBeUndefined();
      await next.unlock();
      const last = a.newLock(id);
      await last.lock(never, () => undefined);
      await last.unlock();
    } finally {
      await sql.end();
    }
  });

  it('reads with the lock in one round trip what the previous holder committed, and hands the read out once', async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    const reading = (url: string) =>
      new PgUploadLocker({ ...options(url), readWithLock: (id: string) => `SELECT at FROM moves WHERE id = '${id}'` });
    const c = reading(db.url);
    const d = reading(db.url);
    try {
      await sql.query('CREATE TABLE IF NOT EXISTS moves (id text PRIMARY KEY, at bigint NOT NULL)');
      const id = randomUUID();
      await sql.query('INSERT INTO moves VALUES ($1, 0)', [id]);
      const first = c.newLock(id);
      await first.lock(never, () => undefined);
      expect(c.takeRead(id)).toEqual({ at: '0' });
      expect(c.takeRead(id)).toBeUndefined();
      // the other instance waits for the lock; its read runs once it is granted
      const second = d.newLock(id);
      const waiting = second.lock(never, () => undefined);
      await new Promise((r) => setTimeout(r, 100));
      expect(await c.commitThenUnlock(id, `UPDATE moves SET at = 8 WHERE id = '${id}'`)).toBe(1);
      await waiting;
      expect(d.takeRead(id)).toEqual({ at: '8' });
      await first.unlock();
      await second.unlock();
      // no row: null, not undefined (the caller answers 404); no lock held: nothing to hand out
      const missing = randomUUID();
      const none = c.newLock(missing);
      await none.lock(never, () => undefined);
      expect(c.takeRead(missing)).toBeNull();
      await none.unlock();
      expect(c.takeRead(missing)).toBeUndefined();
    } finally {
      await c.close();
      await d.close();
      await sql.end();
    }
  });

  /** The connections one locker holds on the suite's database. */
  const lockConnections = async (sql: Client) =>
    Number(
      (
        await sql.query(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'records-service upload locks'`,
        )
      ).rows[0].n,
    );

  it('holds many uploads locked on its few lock connections: a held lock occupies none, other uploads lock at once', async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    const c = new PgUploadLocker({ ...options(db.url), maxLocks: 100, sessions: 2 });
    try {
      const before = await lockConnections(sql);
      const locks = Array.from({ length: 50 }, () => c.newLock(randomUUID()));
      await Promise.all(locks.map((l) => l.lock(never, () => undefined)));
      expect(c.size).toBe(50);
      expect((await lockConnections(sql)) - before).toBeLessThanOrEqual(2);
      // another instance still locks an upload of its own at once
      const other = b.newLock(randomUUID());
      await other.lock(never, () => undefined);
      await other.unlock();
      await Promise.all(locks.map((l) => l.unlock()));
      expect(c.size).toBe(0);
    } finally {
      await c.close();
      await sql.end();
    }
  });

  it('answers 503 with Retry-After beyond its maxLocks, and locks again once one is let go', async () => {
    const c = new PgUploadLocker({ ...options(db.url), maxLocks: 2 });
    try {
      const [x, y] = [c.newLock(randomUUID()), c.newLock(randomUUID())];
      await x.lock(never, () => undefined);
      await y.lock(never, () => undefined);
      const refused = (await c
        .newLock(randomUUID())
        .lock(never, () => undefined)
        .catch((e: unknown) => e)) as ProblemException;
      expect([refused.getStatus(), refused.code, refused.headers?.['Retry-After']]).toEqual([503, 'service_unavailable', '1']);
      await x.unlock();
      const z = c.newLock(randomUUID());
      await z.lock(never, () => undefined);
      await z.unlock();
      await y.unlock();
    } finally {
      await c.close();
    }
  });

  it('asks the holders to end when their lock connection is lost; the uploads lock again on a new one', async () => {
    const sql = new Client({ connectionString: db.url });
    await sql.connect();
    const c = new PgUploadLocker({ ...options(db.url), sessions: 1 });
    try {
      const id = randomUUID();
      const released: string[] = [];
      const held = c.newLock(id);
      await held.lock(never, () => void released.push(id));
      await sql.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'records-service upload locks'`,
      );
      const deadline = Date.now() + 5000;
      while (released.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(released).toEqual([id]);
      await held.unlock();
      const again = c.newLock(id);
      await again.lock(never, () => undefined);
      await again.unlock();
    } finally {
      await c.close();
      await sql.end();
    }
  });

  it('lets go of the lock when the read sent with it fails: 503, and the upload locks again', async () => {
    const c = new PgUploadLocker({ ...options(db.url), readWithLock: () => 'SELECT * FROM no_such_table' });
    try {
      const id = randomUUID();
      const refused = (await c
        .newLock(id)
        .lock(never, () => undefined)
        .catch((e: unknown) => e)) as ProblemException;
      expect(refused.getStatus()).toBe(503);
      const next = b.newLock(id);
      await next.lock(never, () => undefined);
      await next.unlock();
    } finally {
      await c.close();
    }
  });

  it('gives up on a database that does not answer within the connect timeout: 503 with Retry-After, not a hang', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const c = new PgUploadLocker({ ...options(`postgres://postgres@127.0.0.1:${port}/x`), connectTimeoutMs: 300 });
    try {
      const refused = (await c
        .newLock(randomUUID())
        .lock(never, () => undefined)
        .catch((e: unknown) => e)) as ProblemException;
      expect([refused.getStatus(), refused.headers?.['Retry-After']]).toEqual([503, '1']);
    } finally {
      await c.close();
      sockets.forEach((s) => s.destroy());
      await new Promise((r) => silent.close(r));
    }
  });

  it('sends one statement at a time on a lock session, in the order asked, however many requests ask at once', async () => {
    const sessions = new LockSessions({
      databaseUrl: db.url,
      sessions: 1,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 5000,
      onLost: () => undefined,
    });
    const query = Client.prototype.query;
    let running = 0;
    let most = 0;
    const spy = jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      most = Math.max(most, ++running);
      const done = (query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      return done.finally(() => running--);
    } as typeof query);
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => sessions.query(0, `SELECT ${i} AS n, pg_sleep(0.005)`)),
      );
      expect(answers.map(({ results }) => Number(results[0].rows[0].n))).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(most).toBe(1);
    } finally {
      spy.mockRestore();
      await sessions.close();
    }
  });
});
