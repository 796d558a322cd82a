import { Logger } from '@nestjs/common';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { Client, Pool, type PoolClient, type QueryResult } from 'pg';
import { uploadLocked } from '../files.errors';

/** Channel on which a request waiting for an upload asks the instance holding it to let go. */
export const RELEASE_CHANNEL = 'tus_upload_release';

export interface PgUploadLockerOptions {
  /** Connection string of the service's database. */
  databaseUrl: string;
  /** Uploads one instance may hold locked at once (one connection each). */
  maxLocks: number;
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

/** The advisory lock key of an upload. */
const lockKey = (id: string) => `tus-upload:${id}`;

/** A lock this instance holds: the request's release callback and its connection (until unlocked). */
interface Held {
  release: RequestRelease;
  client?: PoolClient;
  /** The row `readWithLock` read right after the lock was taken (null: none), until taken. */
  read?: Record<string, unknown> | null;
}

/**
 * tus upload locks shared by every instance of the service: a PostgreSQL session
 * advisory lock per upload, held on its own connection for the length of the request.
 * A request finding an upload locked NOTIFYs the holder's instance (LISTEN), which
 * calls the holder's release callback: the stalled PATCH of a client that reconnected
 * ends and its successor proceeds, as the tus protocol recommends. Without the
 * notification (listener reconnecting) a waiter still gets the lock once it is freed.
 */
export class PgUploadLocker implements Locker {
  private readonly log = new Logger('UploadLocks');
  private readonly pool: Pool;
  private readonly held = new Map<string, Held>();
  private listener?: Promise<Client | undefined>;
  private closed = false;

  constructor(readonly options: PgUploadLockerOptions) {
    this.pool = new Pool({ connectionString: options.databaseUrl, max: options.maxLocks });
    this.pool.on('error', (err) => this.log.warn(`lock connection failed: ${err.message}`));
  }

  newLock(id: string): Lock {
    return new PgUploadLock(this, id);
  }

  async close(): Promise<void> {
    this.closed = true;
    const listener = await this.listener?.catch(() => undefined);
    await listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  /** Takes the upload's lock or answers undefined while another request holds it. */
  async tryLock(id: string, release: RequestRelease): Promise<Held | undefined> {
    await this.listen();
    const client = await this.pool.connect();
    try {
      const read = this.options.readWithLock?.(id);
      const lock = `SELECT pg_try_advisory_lock(hashtextextended(${client.escapeLiteral(lockKey(id))}, 0)) AS ok`;
      // with a read, two statements in one round trip: the second takes its snapshot after the lock
      const result = (await client.query(read === undefined ? lock : `${lock}; ${read}`)) as unknown as
        | QueryResult
        | QueryResult[];
      const [locked, readResult] = Array.isArray(result) ? result : [result];
      if ((locked?.rows[0] as { ok?: boolean } | undefined)?.ok) {
        const row = readResult && ((readResult.rows[0] as Record<string, unknown> | undefined) ?? null);
        const held: Held = { release, client, read: row };
        this.held.set(id, held);
        return held;
      }
      await client.query('SELECT pg_notify($1, $2)', [RELEASE_CHANNEL, id]);
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    client.release();
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
    const client = held.client;
    held.client = undefined;
    if (!client) return; // already ended by commitThenUnlock
    if (this.held.get(id) === held) this.held.delete(id);
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey(id)]);
      client.release();
    } catch (err) {
      // a broken connection ends its session, and with it the lock
      client.release(err as Error);
    }
  }

  /**
   * Runs `statement` (complete SQL text, values inlined) on the connection that holds the
   * upload's lock, in a transaction committed before the lock is released, all in one
   * round trip; the request's lock ends there (its unlock then does nothing). Answers the
   * rows the statement affected, or undefined when this instance holds no lock on the
   * upload (the caller runs the statement its own way).
   */
  async commitThenUnlock(id: string, statement: string): Promise<number | undefined> {
    const held = this.held.get(id);
    const client = held?.client;
    if (!held || !client) return undefined;
    held.client = undefined;
    this.held.delete(id);
    try {
      const results = (await client.query(
        `BEGIN; ${statement}; COMMIT; ` + `SELECT pg_advisory_unlock(hashtextextended(${client.escapeLiteral(lockKey(id))}, 0))`,
      )) as unknown as QueryResult[];
      client.release();
      return results[1]?.rowCount ?? 0;
    } catch (err) {
      // the broken session ends: its transaction is rolled back and its lock released
      client.release(err as Error);
      throw err;
    }
  }

  /** The LISTEN connection, (re)opened on demand. */
  private listen(): Promise<Client | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    this.listener ??= (async () => {
      const client = new Client({ connectionString: this.options.databaseUrl });
      const reset = (err?: Error) => {
        if (err) this.log.warn(`release listener lost: ${err.message}`);
        this.listener = undefined;
        void client.end().catch(() => undefined);
      };
      client.on('error', reset);
      client.on('notification', (n) => {
        const release = n.payload ? this.held.get(n.payload)?.release : undefined;
        if (release) void Promise.resolve(release()).catch(() => undefined);
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
