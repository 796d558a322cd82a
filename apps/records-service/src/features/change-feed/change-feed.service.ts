import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import { PeriodicTask } from '@vault/platform/runtime';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ChangeFeedRepository, FeedEntry } from '../../persistence/change-feed/change-feed.repository';
import { decodeCursor, encodeCursor } from './change-feed.cursor';
import { ChangeFeedEnv } from './change-feed.env';
import { cursorExpired } from './change-feed.errors';

/** One page of a vault's change feed (docs/change-feed.md). */
export interface ChangeFeedPage {
  data: object[];
  nextCursor: string;
  hasMore: boolean;
}

/** One event as the feed delivers it: its cursor, CloudEvents type and envelope. */
export interface FeedEvent {
  seq: string;
  cursor: string;
  type: string;
  envelope: object;
}

const DAY_MS = 86_400_000;

/**
 * The rules of the vault change feed: where a cursor starts (410 past retention), what
 * the caller sees (a vault member every event, a record guest those of its records, as
 * its roles are when the page is read), and the periodic pruning of expired events.
 */
@Injectable()
export class ChangeFeedService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('ChangeFeed');
  private readonly pruning: PeriodicTask;

  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly env: ChangeFeedEnv,
  ) {
    this.pruning = new PeriodicTask('change feed prune', env.CHANGE_FEED_PRUNE_MS, () => this.prune(), this.logger);
  }

  onModuleInit(): void {
    this.pruning.start();
  }

  onModuleDestroy(): void {
    this.pruning.stop();
  }

  /**
   * The feed position after which a read starts: the cursor's, or without one the oldest
   * retained event's. A cursor before the pruned horizon lost events: 410.
   */
  async start(cursor: string | undefined, field: string): Promise<string> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor, field);
    const pruned = await this.feed.prunedSeq();
    if (after === undefined) return pruned;
    if (BigInt(after) < BigInt(pruned)) throw cursorExpired();
    return after;
  }

  /** Up to `limit` events after `after` that the caller may see now, in stream order. */
  async read(access: VaultAccess, principal: Principal, after: string, limit: number): Promise<FeedEvent[]> {
    const guestOf = access.vaultRole ? undefined : principal.openId;
    const rows = await this.feed.page(access.vault.id, after, limit, guestOf);
    return rows.map(toFeedEvent);
  }

  /** One page: `limit` events after the cursor, the cursor to continue from, and whether more wait. */
  async page(access: VaultAccess, principal: Principal, cursor: string | undefined, limit: number): Promise<ChangeFeedPage> {
    const after = await this.start(cursor, 'cursor');
    const events = await this.read(access, principal, after, limit + 1);
    const hasMore = events.length > limit;
    const shown = events.slice(0, limit);
    return {
      data: shown.map((e) => e.envelope),
      nextCursor: shown.at(-1)?.cursor ?? encodeCursor(after),
      hasMore,
    };
  }

  /** Deletes the events older than the retention and raises the pruned horizon. */
  async prune(now = new Date()): Promise<number> {
    return this.feed.prune(new Date(now.getTime() - this.env.CHANGE_FEED_RETENTION_DAYS * DAY_MS));
  }
}

const toFeedEvent = (r: FeedEntry): FeedEvent => ({
  seq: r.seq,
  cursor: encodeCursor(r.seq),
  type: r.type,
  envelope: r.envelope,
});
