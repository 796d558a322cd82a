import type { CallOptions, RecordsClient, Schemas } from '../api-types.js';
import type { operations } from '../generated/vault-api.js';
import { listItems } from '../pagination.js';
import { dataOf } from '../unwrap.js';

type SearchQuery = NonNullable<operations['Search_find']['parameters']['query']>;

export interface SearchOptions extends CallOptions {
  filters?: Omit<SearchQuery, 'q' | 'cursor' | 'limit'>;
  limit?: number;
}

/** Trash, legal holds and content search (records module). */
export class LifecycleApi {
  constructor(private readonly api: RecordsClient) {}

  /** What the vault's trash holds, page after page. */
  vaultTrash(vaultId: string, o: CallOptions & { pageSize?: number } = {}): AsyncGenerator<Schemas['TrashItemView']> {
    return listItems((cursor) => {
      const query = { pageSize: o.pageSize ?? 100, ...(cursor ? { cursor } : {}) };
      return dataOf(this.api.GET('/vault/vault-id/{vaultId}/trash', { params: { path: { vaultId }, query }, signal: o.signal }));
    });
  }

  /** The trash of every vault the caller owns, page after page. */
  ownedTrash(o: CallOptions & { pageSize?: number } = {}): AsyncGenerator<Schemas['TrashItemView']> {
    return listItems((cursor) => {
      const query = { pageSize: o.pageSize ?? 100, ...(cursor ? { cursor } : {}) };
      return dataOf(this.api.GET('/trash', { params: { query }, signal: o.signal }));
    });
  }

  /** Legal holds the caller may see. */
  legalHolds(o: CallOptions & { vaultId?: string } = {}): AsyncGenerator<Schemas['LegalHoldView']> {
    const query = o.vaultId ? { vaultId: o.vaultId } : {};
    return listItems(() => dataOf(this.api.GET('/legal-holds', { params: { query }, signal: o.signal })));
  }

  /** Every hit of a content search, page after page. */
  search(q: string, o: SearchOptions = {}): AsyncGenerator<Schemas['SearchHitDto']> {
    return listItems((cursor) => {
      const query = { ...o.filters, q, ...(o.limit ? { limit: o.limit } : {}), ...(cursor ? { cursor } : {}) };
      return dataOf(this.api.GET('/search', { params: { query }, signal: o.signal }));
    });
  }
}
