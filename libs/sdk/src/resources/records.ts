import type { CallOptions, CreateOptions, RecordsClient, Schemas, WriteOptions } from '../api-types.js';
import { keyHeader } from '../api-types.js';
import { etagOf, ifMatch, type Tagged } from '../etag.js';
import { listItems } from '../pagination.js';
import { dataOf, unwrap } from '../unwrap.js';

type SearchQuery = NonNullable<import('../generated/vault-api.js').operations['Records_search']['parameters']['query']>;

export interface SearchRecordsOptions extends CallOptions {
  filters?: Omit<SearchQuery, 'page' | 'pageSize' | 'cursor'>;
  pageSize?: number;
}

/** Records of a vault (records module). */
export class RecordsApi {
  constructor(private readonly api: RecordsClient) {}

  /** Creates a record; answers its id. */
  async create(vaultId: string, body: Schemas['RecordDto'], o: CreateOptions = {}): Promise<string> {
    const call = this.api.POST('/vault/vault-id/{vaultId}/records', {
      params: { path: { vaultId } },
      body,
      headers: keyHeader(o),
      signal: o.signal,
    });
    return (await dataOf(call)).id;
  }

  /** A record with its ETag. */
  async get(vaultId: string, recordId: string, o: CallOptions = {}): Promise<Tagged<Schemas['RecordLookupView']>> {
    const path = { vaultId, recordId };
    const { data, response } = await unwrap(
      this.api.GET('/vault/vault-id/{vaultId}/records/record-id/{recordId}', { params: { path }, signal: o.signal }),
    );
    return { data, etag: etagOf(response) };
  }

  /** Every record matching the filters, page after page. */
  search(vaultId: string, o: SearchRecordsOptions = {}): AsyncGenerator<Schemas['RecordSearchItem']> {
    return listItems((cursor) => {
      const query = { ...o.filters, pageSize: o.pageSize ?? 50, ...(cursor ? { cursor } : {}) };
      return dataOf(
        this.api.GET('/vault/vault-id/{vaultId}/records', { params: { path: { vaultId }, query }, signal: o.signal }),
      );
    });
  }

  /** Changes a record (only the version `ifMatch` names, when given); answers its new ETag. */
  async update(vaultId: string, recordId: string, body: Schemas['RecordDto'], o: WriteOptions = {}): Promise<string | undefined> {
    const params = { path: { vaultId, recordId } };
    const call = this.api.PUT('/vault/vault-id/{vaultId}/records/record-id/{recordId}', {
      params,
      body,
      headers: ifMatch(o.ifMatch),
      signal: o.signal,
    });
    return etagOf((await unwrap(call)).response);
  }

  async delete(vaultId: string, recordId: string, o: WriteOptions = {}): Promise<void> {
    const params = { path: { vaultId, recordId } };
    await unwrap(
      this.api.DELETE('/vault/vault-id/{vaultId}/records/record-id/{recordId}', {
        params,
        headers: ifMatch(o.ifMatch),
        signal: o.signal,
      }),
    );
  }
}
