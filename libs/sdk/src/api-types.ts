import type { Client } from 'openapi-fetch';
import type { components, paths } from './generated/vault-api.js';

/** Every schema of the API, by name (`Schemas['VaultView']`). */
export type Schemas = components['schemas'];

type PathsStartingWith<P extends string> = { [K in keyof paths as K extends `${P}${string}` ? K : never]: paths[K] };

/** The developer module's routes (tokens, JWKS). */
export type DeveloperPaths = PathsStartingWith<'/tenant'> & PathsStartingWith<'/.well-known'>;
/** The user module's routes (accounts). */
export type UserPaths = PathsStartingWith<'/accounts'>;
/** The records module's routes (vaults, records, files, log, webhooks, change feed, trash, search): the rest. */
export type RecordsPaths = Omit<paths, keyof DeveloperPaths | keyof UserPaths>;

export type RecordsClient = Client<RecordsPaths>;
export type UserClient = Client<UserPaths>;
export type DeveloperClient = Client<DeveloperPaths>;

/** Per-call options of the SDK's methods. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of a creating call (POST). */
export interface CreateOptions extends CallOptions {
  /** Your own Idempotency-Key; by default the SDK makes one per call and keeps it across retries. */
  idempotencyKey?: string;
}

/** Options of a conditional write (PUT, DELETE). */
export interface WriteOptions extends CallOptions {
  /** The ETag the change applies to: a 412 ({@link PreconditionFailedError}) when it is no longer current. */
  ifMatch?: string;
}

export function keyHeader(o: CreateOptions): Record<string, string> {
  return o.idempotencyKey ? { 'idempotency-key': o.idempotencyKey } : {};
}
