import type { CallOptions, CreateOptions, RecordsClient, Schemas, UserClient } from '../api-types.js';
import { keyHeader } from '../api-types.js';
import { listItems } from '../pagination.js';
import { dataOf } from '../unwrap.js';

/** The caller's account (user module). */
export class AccountsApi {
  constructor(private readonly api: UserClient) {}

  /** Creates the caller's account; answers its id. */
  async create(body: Schemas['CreateAccountDto'], o: CreateOptions = {}): Promise<string> {
    return (await dataOf(this.api.POST('/accounts', { body, headers: keyHeader(o), signal: o.signal }))).id;
  }

  /** The account's consents. */
  agreements(accountId: string, o: CallOptions = {}): AsyncGenerator<Schemas['AgreementResponse']> {
    return listItems(() =>
      dataOf(this.api.GET('/accounts/account-id/{id}/agreements', { params: { path: { id: accountId } }, signal: o.signal })),
    );
  }

  async byUsername(username: string, o: CallOptions = {}): Promise<Schemas['AccountResponse']> {
    return dataOf(this.api.GET('/accounts/username/{username}', { params: { path: { username } }, signal: o.signal }));
  }
}

/** Members of vaults and records. */
export class CollaboratorsApi {
  constructor(private readonly api: RecordsClient) {}

  /** The vault's members, owner first. */
  ofVault(vaultId: string, o: CallOptions = {}): AsyncGenerator<Schemas['CollaboratorView']> {
    return listItems(() =>
      dataOf(this.api.GET('/vault/vault-id/{vaultId}/collaborators', { params: { path: { vaultId } }, signal: o.signal })),
    );
  }

  /** The record's members, rec_owner first. */
  ofRecord(vaultId: string, recordId: string, o: CallOptions = {}): AsyncGenerator<Schemas['CollaboratorView']> {
    const params = { path: { vaultId, recordId } };
    return listItems(() =>
      dataOf(this.api.GET('/vault/vault-id/{vaultId}/records/record-id/{recordId}/collaborators', { params, signal: o.signal })),
    );
  }
}
