import { Logger } from '@nestjs/common';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { Client, escapeLiteral } from 'pg';
import { uploadLocked, uploadLocksUnavailable } from '../files.errors';
import { LockSessions, type SessionRef } from './lock-sessions';

/** Channel on which a request waiting for an upload asks the instance holding it to let go. */
export const RELEASE_CHANNEL = 'tus_upload_release';

export interface PgUploadLockerOptions {
  /** Connection string of the service's database. */
  databaseUrl: string;
  /** Uploads one instance may hold locked at once; a request for one more is 503 with Retry-After. */
  maxLocks: number;
  /** Connections holding the locks (default 2); they hold no connection while an upload streams. */
  sessions?: number;
  /** Connecting a lock session gives up after this long (default 5 s): 503 with Retry-After. */
  connectTimeoutMs?: number;
  /** A lock statement gives up after this long (default 5 s): 503 with Retry-After. */
  statementTimeoutMs?: number;
  /** A request gives up (423 upload_locked) when the upload stays locked this long. */
  acquireTimeoutMs: number;
  /** Pause between two attempts to take a held lock. */
  retryMs: number;
  /**
   * A statement (complete SQL text) reading what the request will read first under the lock:
   * sent with the lock's statement in one round trip and run once the lock is taken, so it
   * sees every change committed before; undefined for none. Its first row, or null, is
   * handed out once by `takeRead`.
   */
  readWithLock?: (id: string) => string | undefined;
}

/** The advisory lock key of an upload, as SQL. */
const lockKey = (id: string) => `hashtextextended(${escapeLiteral(`tus-upload:${id}`)}, 0)`;

/** A lock of this instance: the request's release callback and the session holding it (once taken). */
interface Held {
  release: RequestRelease;
  /** Set once the lock is taken, cleared when it is let go. */
  ref?: SessionRef;
  /** The row `readWithLock` read right after the lock was taken (null: none), until taken. */
  read?: Record<string, unknown> | null;
}

/**
 * tus upload locks shared by every instance of the service: a PostgreSQL session
 * advisory lock per upload, taken and released on one of a few lock sessions
 * (LockSessions) and held there for the length of the request without occupying the
 * connection. One instance's requests for the same upload exclude each other here, in
 * memory (a session's advisory locks are re-entrant). A request finding an upload locked
 * asks the holder to let go: in this instance directly, elsewhere by NOTIFY to the
 * holder's instance (LISTEN), which calls the holder's release callback: the stalled PATCH
 * of a client that reconnected ends and its successor proceeds, as the tus protocol
 * recommends. Without the notification (listener reconnecting) a waiter still gets the lock
 * once it is freed, or 423 after `acquireTimeoutMs`.
 */
export class PgUploadLocker implements Locker {
  private readonly log = new Logger('UploadLocks');
  private readonly sessions: LockSessions;
  private readonly held = new Map<string, Held>();
  private listener?: Promise<Client | undefined>;
  private closed = false;

  constructor(readonly options: PgUploadLockerOptions) {
    this.sessions = new LockSessions({
      databaseUrl: options.databaseUrl,
      sessions: options.sessions ?? 2,
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      statementTimeoutMs: options.statementTimeoutMs ?? 5000,
      onLost: (index) => this.lost(index),
    });
  }

  newLock(id: string): Lock {
    return new PgUploadLock(this, id);
  }

  /** Uploads this instance holds locked (or is locking) now. */
  get size(): number {
    return this.held.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = await this.listener?.catch(() => undefined);
    await listener?.end().catch(() => undefined);
    await this.sessions.close();
  }

  /** Takes the upload's lock or answers undefined while another request holds it. */
  async tryLock(id: string, release: RequestRelease): Promise<Held | undefined> {
    const local = this.held.get(id);
    if (local) {
      // another request of this instance holds it: ask it to let go, as another instance would be asked
      if (local.ref) void Promise.resolve(local.release()).catch(() => undefined);
      return undefined;
    }
    if (this.held.size >= this.options.maxLocks) throw uploadLocksUnavailable();
    void this.listen();
    const held: Held = { release };
    this.held.set(id, held);
    const read = this.options.readWithLock?.(id);
    // one round trip: the lock, the holder asked to let go when it is not free, and the read once it is
    const lock =
      `WITH l AS MATERIALIZED (SELECT pg_try_advisory_lock(${lockKey(id)}) AS ok) ` +
      `SELECT ok, CASE WHEN ok THEN NULL ELSE pg_notify('${RELEASE_CHANNEL}', ${escapeLiteral(id)}) END AS asked FROM l`;
    try {
      const { results, ref } = await this.sessions.query(
        this.sessions.sessionOf(id),
        read === undefined ? lock : `${lock}; ${read}`,
      );
      const [locked, readResult] = results;
      if ((locked?.rows[0] as { ok?: boolean } | undefined)?.ok && this.sessions.current(ref)) {
        held.ref = ref;
        held.read = readResult && ((readResult.rows[0] as Record<string, unknown> | undefined) ?? null);
        return held;
      }
    } catch (err) {
      // a statement after the lock failed on a live session: the lock (not transactional) may be held
      if (!LockSessions.ends(err)) {
        await this.sessions
          .query(this.sessions.sessionOf(id), `SELECT pg_advisory_unlock(${lockKey(id)})`)
          .catch(() => undefined);
      }
      this.forget(id, held);
      this.log.warn(`upload lock not taken: ${(err as Error).message}`);
      throw uploadLocksUnavailable();
    }
    this.forget(id, held);
    return undefined;
  }

  /**
   * What `readWithLock` read when this instance took the upload's lock, handed out once
   * (null: no row); undefined when this instance holds no such read.
   */
  takeRead(id: string): Record<string, unknown> | null | undefined {
    const held = this.held.get(id);
    const read = held?.read;
    if (held) held.read = undefined;
    return read;
  }

  async unlock(id: string, held: Held): Promise<void> {
    const ref = held.ref;
    held.ref = undefined;
    // (none: already let go by commitThenUnlock, or gone with its session)
    if (ref && this.sessions.current(ref)) {
      await this.sessions.query(ref.index, `SELECT pg_advisory_unlock(${lockKey(id)})`).catch(() => undefined);
    }
    // counted (and excluding this instance's other requests) until the unlock has run
    this.forget(id, held);
  }

  /**
   * Runs `statement` (complete SQL text, values inlined) on the session that holds the
   * upload's lock, in a transaction committed before the lock is released, all in one
   * round trip; the request's lock ends there (its unlock then does nothing). Answers the
   * rows the statement affected, or undefined when this instance holds no lock on the
   * upload (the caller runs the statement its own way).
   */
  async commitThenUnlock(id: string, statement: string): Promise<number | undefined> {
    const held = this.held.get(id);
    const ref = held?.ref;
    if (!held || !ref || !this.sessions.current(ref)) return undefined;
    held.ref = undefined;
    const unlock = `SELECT pg_advisory_unlock(${lockKey(id)})`;
    try {
      const { results } = await this.sessions.query(ref.index, `BEGIN; ${statement}; COMMIT; ${unlock}`);
      return results[1]?.rowCount ?? 0;
    } catch (err) {
      // the failed statement left its transaction open on the shared session: end it and the lock
      if (this.sessions.current(ref)) {
        await this.sessions.query(ref.index, `ROLLBACK; ${unlock}`).catch(() => this.sessions.lose(ref.index, ref.generation));
      }
      throw err;
    } finally {
      this.forget(id, held);
    }
  }

  private forget(id: string, held: Held): void {
    if (this.held.get(id) === held) this.held.delete(id);
  }

  /** A lock session ended, and the locks it held with it: their requests are asked to end. */
  private lost(index: number): void {
    for (const held of this.held.values()) {
      if (held.ref?.index === index) void Promise.resolve(held.release()).catch(() => undefined);
    }
  }

  /** The LISTEN connection, (re)opened on demand. */
  private listen(): Promise<Client | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.listener ??= (async () => {
      const client = new Client({
        connectionString: this.options.databaseUrl,
        connectionTimeoutMillis: this.options.connectTimeoutMs ?? 5000,
      });
      const reset = (err?: Error) => {
        if (err) this.log.warn(`release listener lost: ${err.message}`);
        this.listener = undefined;
        void client.end().catch(() => undefined);
      };
      client.on('error', reset);
      client.on('notification', (n) => {
        const held = n.payload ? this.held.get(n.payload) : undefined;
        if (held?.ref) void Promise.resolve(held.release()).catch(() => undefined);
      });
      try {
        await client.connect();
        await client.query(`LISTEN ${RELEASE_CHANNEL}`);
        return client;
      } catch (err) {
        reset(err as Error);
        return undefined;
      }
    })();
    return this.listener;
  }
}

class PgUploadLock implements Lock {
  private held?: Held;

  constructor(
    private readonly locker: PgUploadLocker,
    private readonly id: string,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const deadline = Date.now() + this.locker.options.acquireTimeoutMs;
    while (!signal.aborted && Date.now() < deadline) {
      this.held = await this.locker.tryLock(this.id, requestRelease);
      if (this.held) return;
      await new Promise((r) => setTimeout(r, this.locker.options.retryMs));
    }
    throw uploadLocked();
  }

  async unlock(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held) await this.locker.unlock(this.id, held);
  }
}
