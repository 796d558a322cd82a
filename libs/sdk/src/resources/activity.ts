import type { CallOptions, RecordsClient, Schemas } from '../api-types.js';
import type { operations } from '../generated/vault-api.js';
import { listItems } from '../pagination.js';
import type { Transport } from '../policy/transport.js';
import { followFeed, type CloudEvent, type FeedMessage, type FollowOptions } from '../transfer/feed.js';
import { dataOf } from '../unwrap.js';

type LogQuery = NonNullable<operations['ActivityLog_list']['parameters']['query']>;

export interface LogOptions extends CallOptions {
  filters?: Omit<LogQuery, 'page' | 'cursor' | 'pageSize'>;
  pageSize?: number;
}

export interface FeedPageOptions extends CallOptions {
  /** Start after this cursor; default: the oldest retained event. */
  cursor?: string;
  limit?: number;
}

/** A page of the change feed. */
export interface FeedPage {
  data: CloudEvent[];
  nextCursor: string;
  hasMore: boolean;
}

/** A vault's activity log and change feed. */
export class ActivityApi {
  constructor(
    private readonly api: RecordsClient,
    private readonly transport: Transport,
    private readonly recordsUrl: string,
  ) {}

  /** Every activity-log entry matching the filters, newest first, following the log's cursors. */
  log(vaultId: string, o: LogOptions = {}): AsyncGenerator<Schemas['ActivityLogEntryDto']> {
    return listItems((cursor) => {
      const query = { ...o.filters, pageSize: o.pageSize ?? 100, ...(cursor ? { cursor } : {}) };
      return dataOf(this.api.GET('/vault/vault-id/{vaultId}/log', { params: { path: { vaultId }, query }, signal: o.signal }));
    });
  }

  /** One page of the change feed (keep its `nextCursor`). */
  async feedPage(vaultId: string, o: FeedPageOptions = {}): Promise<FeedPage> {
    const query = { ...(o.cursor ? { cursor: o.cursor } : {}), ...(o.limit ? { limit: o.limit } : {}) };
    const call = this.api.GET('/vault/vault-id/{vaultId}/events', { params: { path: { vaultId }, query }, signal: o.signal });
    return (await dataOf(call)) as unknown as FeedPage;
  }

  /** The change feed's retained events from `cursor` up to now, page after page. */
  feed(vaultId: string, o: FeedPageOptions = {}): AsyncGenerator<CloudEvent> {
    return listItems((cursor) => this.feedPage(vaultId, { ...o, cursor: cursor ?? o.cursor }));
  }

  /** The live change feed (SSE), resumed with Last-Event-ID after every drop; ends when `signal` aborts. */
  follow(vaultId: string, o: FollowOptions = {}): AsyncGenerator<FeedMessage> {
    return followFeed(this.transport, `${this.recordsUrl}/vault/vault-id/${encodeURIComponent(vaultId)}/events`, o);
  }
}
