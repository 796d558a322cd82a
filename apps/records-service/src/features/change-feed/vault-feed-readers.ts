import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { keepPlansFresh, PLAN_MAX_AGE_MS, withStatementName } from '@vault/platform/persistence';
import { Client } from 'pg';
import {
  ChangeFeedRepository,
  FeedCaller,
  FeedEntry,
  FeedQuery,
  FeedView,
} from '../../persistence/change-feed/change-feed.repository';
import { encodeCursor } from './change-feed.cursor';
import { ChangeFeedEnv } from './change-feed.env';
import { FeedSignal } from './feed-signal';

/** Events one read of a vault's feed takes at most (a full read is followed by the next at once). */
export const FEED_READ_BATCH = 500;

/** One event as the streams of a vault share it: its position, record and SSE message, made once. */
export interface SharedEvent {
  seq: bigint;
  recordId: string | null;
  message: string;
}

/** One Server-Sent Events message: its id is the event's cursor. */
export const sseMessage = (e: Pick<FeedEntry, 'seq' | 'type' | 'envelope'>): string =>
  `id: ${encodeCursor(e.seq)}\nevent: ${e.type}\ndata: ${JSON.stringify(e.envelope)}\n\n`;

/** An open stream of a vault as its reader sees it. */
export interface FeedSubscriber {
  readonly caller: FeedCaller;
  /** The feed position this stream has passed (its own cursor, also past events it may not see). */
  position: bigint;
  /** Writes the events (after `position`, visible to the caller) and moves `position` to `to`. */
  deliver(events: SharedEvent[], to: bigint): void;
  /** The caller no longer sees the vault: the stream ends. */
  lost(): void;
}

const callerKey = (c: FeedCaller) => `${c.tenantId}\u0000${c.openId}`;

/** Whether a caller with this view sees the event: a member every one, a guest those of its records. */
function visibleTo(view: FeedView, records: Set<string>, e: SharedEvent): boolean {
  return view.vaultRole !== null || (e.recordId !== null && records.has(e.recordId));
}

type FeedRead = Parameters<ChangeFeedRepository['eventsAndViewsOf']>[0][number];
type FeedReadResult = Awaited<ReturnType<ChangeFeedRepository['eventsAndViewsOf']>>[number];

/**
 * The connection the vault readers of this process read through: one of its own, opened
 * with the first read, so that a stream's read does not queue for the pool behind the
 * API's transactions (under write load the pool is the longest wait of a live event).
 * While it cannot be opened, reads go through the pool; a failed statement closes it (the
 * next read opens another).
 */
export class FeedReadConnection {
  private current?: { client: Client; ready: Promise<unknown> };
  private closed = false;
  /** Statements run on the connection and through the pool. */
  readonly counts = { own: 0, pool: 0 };

  constructor(
    private readonly url: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs the statement (named: prepared once per connection) on the connection, or through `pool` while there is none. */
  async query(sql: string, params: unknown[], pool: FeedQuery, name?: string): Promise<unknown[]> {
    const client = this.closed ? undefined : await this.open();
    if (!client) {
      this.counts.pool++;
      return pool(sql, params, name);
    }
    try {
      this.counts.own++;
      // its plans follow the tables as the pool's do: a generic plan made while the feed was
      // small would scan it whole
      keepPlansFresh(client, PLAN_MAX_AGE_MS, this.now);
      if (!name) return (await client.query({ text: sql, values: params })).rows;
      return await withStatementName(
        name,
        true,
        async (sent) => (await client.query({ name: sent, text: sql, values: params })).rows,
      );
    } catch (err) {
      this.drop(client);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.current) this.drop(this.current.client);
  }

  /** The open connection (opened now if there is none); undefined when it cannot be opened. */
  private async open(): Promise<Client | undefined> {
    let current = this.current;
    if (!current) {
      const client = new Client({ connectionString: this.url });
      client.on('error', () => this.drop(client));
      client.on('end', () => this.drop(client));
      this.current = current = { client, ready: client.connect() };
    }
    const { client, ready } = current;
    try {
      await ready;
      return client;
    } catch {
      this.drop(client);
      return undefined;
    }
  }

  private drop(client: Client): void {
    if (this.current?.client === client) this.current = undefined;
    void client.end().catch(() => undefined);
  }
}

/**
 * The reads of the vault readers of this process, gathered: the reads asked for while
 * the process runs one piece of work (a signal wakes every reader of the vaults it names
 * at once), or while the previous statement runs, go to PostgreSQL as one statement
 * (eventsAndViewsOf), not one per vault; one statement at a time, on the readers' own
 * connection (FeedReadConnection).
 */
class FeedReads {
  private waiting: { read: FeedRead; resolve: (r: FeedReadResult) => void; reject: (err: unknown) => void }[] = [];
  private reading = false;

  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly connection: FeedReadConnection,
  ) {}

  read(read: FeedRead): Promise<FeedReadResult> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ read, resolve, reject }) === 1 && !this.reading) queueMicrotask(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    if (this.reading || this.waiting.length === 0) return;
    this.reading = true;
    const batch = this.waiting;
    this.waiting = [];
    try {
      const results = await this.feed.eventsAndViewsOf(
        batch.map((w) => w.read),
        FEED_READ_BATCH,
        (sql, params, name) => this.connection.query(sql, params, this.feed.poolQuery, name),
      );
      batch.forEach((w, i) => w.resolve(results[i]));
    } catch (err) {
      batch.forEach((w) => w.reject(err));
    } finally {
      this.reading = false;
      void this.flush();
    }
  }
}

/**
 * The one reader of a vault's feed in this process: when woken (events written here,
 * a NOTIFY from any instance, or its poll every CHANGE_FEED_POLL_MS), it reads the new
 * events once from the lowest position of its streams together with what each distinct
 * caller sees now (one statement, shared with the other vaults read at the same moment:
 * FeedReads; the views on each poll too), and hands the
 * events to every stream, which keeps its own position and filters by its caller's view.
 */
class VaultFeedReader {
  readonly subscribers = new Set<FeedSubscriber>();
  /** Signals naming this vault (its writer's or a notification) that woke the reader. */
  signalled = 0;
  private running = false;
  private again = false;
  private recheck = false;
  private poll?: NodeJS.Timeout;

  constructor(
    private readonly vaultId: string,
    private readonly reads: FeedReads,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  /** Reads now (or right after the read under way); `recheck` also re-reads the callers' access. */
  wake(recheck = false): void {
    this.recheck ||= recheck;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.poll);
    this.poll = undefined;
    void this.run();
  }

  stop(): void {
    clearTimeout(this.poll);
    this.poll = undefined;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      let more = true;
      while (more && this.subscribers.size > 0) {
        this.again = false;
        more = (await this.readOnce()) || this.again;
      }
    } catch (err) {
      this.logger.warn(`change feed reader of vault ${this.vaultId}: ${String(err)} (retrying at the next poll)`);
    } finally {
      this.running = false;
      if (this.subscribers.size > 0 && !this.poll)
        this.poll = setTimeout(() => ((this.poll = undefined), this.wake(true)), this.pollMs);
    }
  }

  /** One read and delivery; true when the read was full (more events wait). */
  private async readOnce(): Promise<boolean> {
    const streams = [...this.subscribers];
    if (streams.length === 0) return false;
    const from = streams.reduce((min, s) => (s.position < min ? s.position : min), streams[0].position);
    // the new events and what each caller sees at delivery time, in one statement for all the streams
    const callers = [...new Map(streams.map((s) => [callerKey(s.caller), s.caller])).values()];
    const recheck = this.recheck;
    this.recheck = false;
    const { events: rows, views: viewRows } = await this.reads.read({
      vaultId: this.vaultId,
      afterSeq: from.toString(),
      callers,
      always: recheck,
    });
    if (rows.length === 0 && !recheck) return false;
    const views = new Map<string, { view: FeedView; records: Set<string> }>();
    for (const view of viewRows) views.set(callerKey(view), { view, records: new Set(view.guestRecords) });
    const events: SharedEvent[] = rows.map((r) => ({
      seq: BigInt(r.seq),
      recordId: r.recordId,
      message: sseMessage(r),
    }));
    const to = events.at(-1)?.seq ?? from;
    for (const s of streams) {
      if (!this.subscribers.has(s)) continue;
      const seen = views.get(callerKey(s.caller));
      if (!seen || (seen.view.vaultRole === null && seen.records.size === 0)) {
        s.lost();
        continue;
      }
      s.deliver(
        events.filter((e) => e.seq > s.position && visibleTo(seen.view, seen.records, e)),
        to,
      );
    }
    return rows.length === FEED_READ_BATCH;
  }
}

/**
 * The vault readers of this process (docs/change-feed.md, Streaming): one per vault with
 * open streams, created with the first stream and dropped with the last.
 */
@Injectable()
export class VaultFeedReaders implements OnModuleDestroy {
  private readonly logger = new Logger('ChangeFeedReader');
  private readonly readers = new Map<string, VaultFeedReader>();
  private readonly reads: FeedReads;
  /** The readers' own connection to PostgreSQL. */
  readonly connection: FeedReadConnection;
  private unsubscribe?: () => void;

  constructor(
    feed: ChangeFeedRepository,
    private readonly env: ChangeFeedEnv,
    private readonly signal: FeedSignal,
  ) {
    this.connection = new FeedReadConnection(env.DATABASE_URL);
    this.reads = new FeedReads(feed, this.connection);
  }

  /** Adds a stream to its vault's reader, which reads at once from the stream's position. */
  join(vaultId: string, s: FeedSubscriber): void {
    this.unsubscribe ??= this.signal.subscribe((vaultIds) => this.woken(vaultIds));
    let reader = this.readers.get(vaultId);
    if (!reader)
      this.readers.set(vaultId, (reader = new VaultFeedReader(vaultId, this.reads, this.env.CHANGE_FEED_POLL_MS, this.logger)));
    reader.subscribers.add(s);
    reader.wake();
  }

  leave(vaultId: string, s: FeedSubscriber): void {
    const reader = this.readers.get(vaultId);
    if (!reader?.subscribers.delete(s) || reader.subscribers.size > 0) return;
    reader.stop();
    this.readers.delete(vaultId);
  }

  /**
   * Signals naming the vault (this process's writer or another instance's notification)
   * that woke its reader since it was created with the vault's first open stream; 0
   * without open streams.
   */
  signalledWakes(vaultId: string): number {
    return this.readers.get(vaultId)?.signalled ?? 0;
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe?.();
    for (const r of this.readers.values()) r.stop();
    this.readers.clear();
    await this.connection.close();
  }

  private woken(vaultIds: readonly string[] | undefined): void {
    if (vaultIds === undefined) for (const r of this.readers.values()) r.wake();
    else
      for (const id of vaultIds) {
        const reader = this.readers.get(id);
        if (!reader) continue;
        reader.signalled++;
        reader.wake();
      }
  }
}
