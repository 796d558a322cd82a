import { Logger } from '@nestjs/common';
import { Client, DatabaseError, type QueryResult } from 'pg';

export interface LockSessionsOptions {
  /** Connection string of the service's database. */
  databaseUrl: string;
  /** Connections holding this instance's upload locks (never from the service's main pool). */
  sessions: number;
  /** Connecting a lock session gives up after this long. */
  connectTimeoutMs: number;
  /** A lock statement gives up after this long (server and client side); its session is then ended. */
  statementTimeoutMs: number;
  /** Called with the number of a session that ended: every lock it held is gone. */
  onLost: (session: number) => void;
}

/** A lock session as one request saw it: its number and which connection of that number. */
export interface SessionRef {
  readonly index: number;
  readonly generation: number;
}

/** PostgreSQL errors after which a session's state is not trusted: statement timeout, aborted transaction. */
const SESSION_ENDING = new Set(['57014', '25P02']);

interface Slot {
  client?: Promise<Client>;
  generation: number;
  /** Settles when the session's last statement sent has ended: the next one waits for it. */
  turn: Promise<unknown>;
}

/**
 * The few PostgreSQL sessions that hold an instance's upload locks. A session advisory
 * lock needs its session only to take and release it, not while the upload streams:
 * any number of uploads stay locked on a handful of connections, so a slow PATCH
 * holds no connection and cannot starve anyone, and the service's TypeORM pool is never
 * touched. Each statement is short and bounded (statement_timeout, query_timeout); a
 * session that fails or times out is ended (its locks go with it, `onLost` says so) and
 * opened again on the next statement, within `connectTimeoutMs`.
 */
export class LockSessions {
  private readonly log = new Logger('UploadLocks');
  private readonly slots: Slot[];
  private closed = false;

  constructor(private readonly options: LockSessionsOptions) {
    this.slots = Array.from({ length: options.sessions }, () => ({ generation: 0, turn: Promise.resolve() }));
  }

  /** The session an upload's lock lives on (the same for every request of the upload on this instance). */
  sessionOf(id: string): number {
    let h = 0;
    for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) | 0;
    return Math.abs(h) % this.slots.length;
  }

  /** Runs `text` on session `index`; answers the results and which connection ran them. */
  async query(index: number, text: string): Promise<{ results: QueryResult[]; ref: SessionRef }> {
    const slot = this.slots[index];
    const generation = slot.generation;
    const client = await this.connected(slot, index);
    try {
      // one statement at a time on a session (pg queues a second itself, but pg 9 will refuse it)
      const running = slot.turn.then(() => client.query(text) as unknown as Promise<QueryResult | QueryResult[]>);
      slot.turn = running.catch(() => undefined);
      const result = await running;
      return { results: Array.isArray(result) ? result : [result], ref: { index, generation } };
    } catch (err) {
      // a statement that timed out or a broken connection: end the session rather than guess its state
      if (LockSessions.ends(err)) this.lose(index, generation, err);
      throw err;
    }
  }

  /** Whether a statement's failure ends its session (the connection broke, or its state is not trusted). */
  static ends(err: unknown): boolean {
    return !(err instanceof DatabaseError) || SESSION_ENDING.has(err.code ?? '');
  }

  /** Whether the connection `ref` ran on is still the session's (its locks are still held). */
  current(ref: SessionRef): boolean {
    return this.slots[ref.index].generation === ref.generation && this.slots[ref.index].client !== undefined;
  }

  /** Ends session `index` when it is still the connection `generation` (its locks are released). */
  lose(index: number, generation: number, err?: unknown): void {
    const slot = this.slots[index];
    if (slot.generation !== generation || !slot.client) return;
    if (err) this.log.warn(`lock session ${index} ended: ${(err as Error).message}`);
    const client = slot.client;
    slot.client = undefined;
    slot.generation++;
    // the next connection does not wait for the statements still queued on this one
    slot.turn = Promise.resolve();
    void client.then((c) => c.end()).catch(() => undefined);
    this.options.onLost(index);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const client = slot.client;
        slot.client = undefined;
        await client?.then((c) => c.end()).catch(() => undefined);
      }),
    );
  }

  private connected(slot: Slot, index: number): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('upload locks are closed'));
    if (slot.client) return slot.client;
    const generation = slot.generation;
    const { databaseUrl, connectTimeoutMs, statementTimeoutMs } = this.options;
    const client = new Client({
      connectionString: databaseUrl,
      connectionTimeoutMillis: connectTimeoutMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + 1000,
      application_name: 'records-service upload locks',
    });
    client.on('error', (err) => this.lose(index, generation, err));
    client.on('end', () => this.lose(index, generation));
    slot.client = client.connect().then(
      () => client,
      (err: unknown) => {
        if (slot.generation === generation) slot.client = undefined;
        throw err;
      },
    );
    return slot.client;
  }
}
