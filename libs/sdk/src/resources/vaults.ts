import type { CallOptions, CreateOptions, RecordsClient, Schemas, WriteOptions } from '../api-types.js';
import { keyHeader } from '../api-types.js';
import { etagOf, ifMatch, type Tagged } from '../etag.js';
import { listItems } from '../pagination.js';
import { dataOf, unwrap } from '../unwrap.js';

export interface ListVaultsOptions extends CallOptions {
  /** true: the vaults shared with the caller; false: the ones it owns; default: all. */
  shared?: boolean;
  pageSize?: number;
}

/** Vaults (records module). */
export class VaultsApi {
  constructor(private readonly api: RecordsClient) {}

  /** Creates a vault; answers its id. */
  async create(body: Schemas['CreateVaultDto'], o: CreateOptions = {}): Promise<string> {
    const created = await dataOf(this.api.POST('/vault', { body, headers: keyHeader(o), signal: o.signal }));
    return created.id;
  }

  /** A vault with its ETag. */
  async get(vaultId: string, o: CallOptions = {}): Promise<Tagged<Schemas['VaultView']>> {
    const { data, response } = await unwrap(
      this.api.GET('/vault/vault-id/{vaultId}', { params: { path: { vaultId } }, signal: o.signal }),
    );
    return { data, etag: etagOf(response) };
  }

  /** Every vault the caller sees, page after page. */
  list(o: ListVaultsOptions = {}): AsyncGenerator<Schemas['VaultView']> {
    const shared = o.shared === undefined ? undefined : o.shared ? 'true' : 'false';
    return listItems((cursor) => {
      const query = { shared, pageSize: o.pageSize ?? 50, ...(cursor ? { cursor } : {}) } as const;
      return dataOf(this.api.GET('/vault', { params: { query }, signal: o.signal }));
    });
  }

  /** Changes a vault (only the version `ifMatch` names, when given); answers it with its new ETag. */
  async update(vaultId: string, body: Schemas['UpdateVaultDto'], o: WriteOptions = {}): Promise<Tagged<Schemas['VaultView']>> {
    const call = this.api.PUT('/vault/vault-id/{vaultId}', {
      params: { path: { vaultId } },
      body,
      headers: ifMatch(o.ifMatch),
      signal: o.signal,
    });
    const { data, response } = await unwrap(call);
    return { data, etag: etagOf(response) };
  }

  /** The vault's licences. */
  licenses(vaultId: string, o: CallOptions = {}): AsyncGenerator<Schemas['LicenseView']> {
    return listItems(() =>
      dataOf(this.api.GET('/vault/vault-id/{vaultId}/licenses', { params: { path: { vaultId } }, signal: o.signal })),
    );
  }

  /**
   * The vault's age identity (`AGE-SECRET-KEY-1…`), with which `age -d -i` opens the vault's
   * `.age` exports (docs/encryption.md). Owner only; each export is recorded in the vault's
   * activity log. It opens every file of the vault in every copy: keep it like the files.
   */
  async exportIdentity(vaultId: string, o: CallOptions = {}): Promise<string> {
    const text = await dataOf(
      this.api.GET('/vault/vault-id/{vaultId}/encryption/identity', {
        params: { path: { vaultId } },
        parseAs: 'text',
        signal: o.signal,
      }),
    );
    return String(text).trim();
  }

  async delete(vaultId: string, o: WriteOptions = {}): Promise<void> {
    await unwrap(
      this.api.DELETE('/vault/vault-id/{vaultId}', {
        params: { path: { vaultId } },
        headers: ifMatch(o.ifMatch),
        signal: o.signal,
      }),
    );
  }
}
