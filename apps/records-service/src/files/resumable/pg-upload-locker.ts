import { Logger } from '@nestjs/common';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import { FILE_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { Client, Pool, type PoolClient } from 'pg';

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
}

/** The advisory lock key of an upload. */
const lockKey = (id: string) => `tus-upload:${id}`;

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
  private readonly held = new Map<string, RequestRelease>();
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

  /** Takes the upload's lock or answers false while another request holds it. */
  async tryLock(id: string, release: RequestRelease): Promise<PoolClient | undefined> {
    await this.listen();
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(
        'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
        [lockKey(id)],
      );
      if (rows[0]?.ok) {
        this.held.set(id, release);
        return client;
      }
      await client.query('SELECT pg_notify($1, $2)', [RELEASE_CHANNEL, id]);
    } catch (err) {
      client.release(err as Error);
      throw err;
    }
    client.release();
    return undefined;
  }

  async unlock(id: string, client: PoolClient): Promise<void> {
    this.held.delete(id);
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey(id)]);
      client.release();
    } catch (err) {
      // a broken connection ends its session, and with it the lock
      client.release(err as Error);
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
        const release = n.payload ? this.held.get(n.payload) : undefined;
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
  private client?: PoolClient;

  constructor(
    private readonly locker: PgUploadLocker,
    private readonly id: string,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    const deadline = Date.now() + this.locker.options.acquireTimeoutMs;
    while (!signal.aborted && Date.now() < deadline) {
      this.client = await this.locker.tryLock(this.id, requestRelease);
      if (this.client) return;
      await new Promise((r) => setTimeout(r, this.locker.options.retryMs));
    }
    throw new ProblemException(
      423,
      FILE_ERROR_CODES.uploadLocked,
      'Another request is writing to this upload; retry once it ends (HEAD gives the offset).',
    );
  }

  async unlock(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await this.locker.unlock(this.id, client);
  }
}
