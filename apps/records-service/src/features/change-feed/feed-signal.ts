import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { Client } from 'pg';
import { FEED_CHANNEL, feedNotification } from '../../persistence/change-feed/change-feed.repository';
import { ChangeFeedEnv } from './change-feed.env';

/** Called with the vaults whose feed has new events, or with `undefined` for "any vault". */
export type FeedListener = (vaultIds: readonly string[] | undefined) => void;

/** Delay before a lost LISTEN connection is opened again (streams poll meanwhile). */
const RELISTEN_MS = 1000;

/**
 * Tells the vault readers of this process that a vault's feed has new events: at once
 * when this process's change-feed writer committed them, and through PostgreSQL
 * LISTEN/NOTIFY (the writer's transaction notifies FEED_CHANNEL with its instance id and
 * the vaults it wrote) when another instance did; this process's own notifications are
 * skipped, its readers were woken by its writer already. The LISTEN connection opens with
 * the first listener; while it is down (and after it is back: "any vault") the readers
 * fall back on their poll.
 */
@Injectable()
export class FeedSignal implements OnModuleDestroy {
  private readonly logger = new Logger('FeedSignal');
  private readonly listeners = new Set<FeedListener>();
  private listener?: Client;
  private relisten?: NodeJS.Timeout;
  private closed = false;

  /** Names this process in the notifications of its writer. */
  readonly instanceId = randomUUID();

  /**
   * Vaults signalled so far, counted once per signal: by this process's writer, by
   * notifications of other instances, and in its own notifications (skipped).
   */
  readonly signalled = { written: 0, notified: 0, ownSkipped: 0 };

  constructor(private readonly env: ChangeFeedEnv) {}

  /** Calls `listener` on every signal until the returned function is called. */
  subscribe(listener: FeedListener): () => void {
    this.listeners.add(listener);
    if (!this.listener && !this.relisten) void this.listen();
    return () => this.listeners.delete(listener);
  }

  /** Events of these vaults were committed by this process. */
  written(vaultIds: Iterable<string>): void {
    const ids = [...new Set(vaultIds)];
    if (ids.length === 0) return;
    this.signalled.written += ids.length;
    this.emit(ids);
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relisten);
    const client = this.listener;
    this.listener = undefined;
    await client?.end().catch(() => undefined);
  }

  private emit(vaultIds: readonly string[] | undefined): void {
    for (const l of [...this.listeners]) l(vaultIds);
  }

  private notified(payload: string): void {
    const { sender, vaultIds } = feedNotification(payload);
    if (sender === this.instanceId) {
      this.signalled.ownSkipped += vaultIds.length;
      return;
    }
    this.signalled.notified += vaultIds.length;
    this.emit(vaultIds);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new Client({ connectionString: this.env.DATABASE_URL });
    const lost = (err?: Error) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      if (err) this.logger.warn(`change feed LISTEN connection lost, streams poll until it is back: ${err.message}`);
      void client.end().catch(() => undefined);
      if (!this.closed) this.relisten = setTimeout(() => ((this.relisten = undefined), void this.listen()), RELISTEN_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel === FEED_CHANNEL && n.payload) this.notified(n.payload);
    });
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${FEED_CHANNEL}`);
      // notifications sent before the LISTEN took effect are lost: every reader looks once
      this.emit(undefined);
    } catch (err) {
      lost(err as Error);
    }
  }
}
