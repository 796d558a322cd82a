/**
 * Event subjects, versioned. A breaking payload change gets a new version suffix;
 * consumers may subscribe to several versions while producers move.
 */
export const EVENT_STREAMS = {
  /** Durable stream of vault activity (records-service outbox → activity log writer). */
  vaultEvents: { name: 'VAULT_EVENTS', subjects: ['vault.>'] },
  /** Account lifecycle events from user-service (outbox → relay; full state and version per event). */
  accountEvents: { name: 'ACCOUNT_EVENTS', subjects: ['account.>'] },
} as const;

export const SUBJECTS = {
  tokenRevoked: 'auth.token.revoked.v1',
  /** Account events (stream ACCOUNT_EVENTS): the account's full state, see AccountStateEvent. */
  accountCreated: 'account.created.v1',
  /** v2: the full state (v1 named only the part changed). */
  accountUpdated: 'account.updated.v2',
  accountDeleted: 'account.deleted.v1',
  vaultCreated: 'vault.vault.created.v1',
  vaultUpdated: 'vault.vault.updated.v1',
  vaultDeleted: 'vault.vault.deleted.v1',
  licenseCreated: 'vault.license.created.v1',
  recordCreated: 'vault.record.created.v1',
  recordUpdated: 'vault.record.updated.v1',
  recordDeleted: 'vault.record.deleted.v1',
  recordTransferred: 'vault.record.transferred.v1',
  fileUploaded: 'vault.file.uploaded.v1',
  fileUpdated: 'vault.file.updated.v1',
  fileDeleted: 'vault.file.deleted.v1',
  /** File versions (records/file-versions.ts). */
  fileVersionCreated: 'vault.file.version.created.v1',
  fileVersionRestored: 'vault.file.version.restored.v1',
  /** The text of a file version was read (or found unreadable): docs/search.md. */
  fileTextExtracted: 'vault.file.text_extracted.v1',
  collaboratorCreated: 'vault.collaborator.created.v1',
  collaboratorUpdated: 'vault.collaborator.updated.v1',
  collaboratorDeleted: 'vault.collaborator.deleted.v1',
  vaultTransferred: 'vault.vault.transferred.v1',
  /** The trash lifecycle (records/trash-events.ts). */
  vaultTrashed: 'vault.vault.trashed.v1',
  vaultRestored: 'vault.vault.restored.v1',
  vaultPurged: 'vault.vault.purged.v1',
  recordTrashed: 'vault.record.trashed.v1',
  recordRestored: 'vault.record.restored.v1',
  recordPurged: 'vault.record.purged.v1',
  fileTrashed: 'vault.file.trashed.v1',
  fileRestored: 'vault.file.restored.v1',
  filePurged: 'vault.file.purged.v1',
  /** Exports by a vault's owner (records/export-events.ts). */
  vaultKeyExported: 'vault.vault.key_exported.v1',
  fileExported: 'vault.file.exported.v1',
} as const;
export type Subject = (typeof SUBJECTS)[keyof typeof SUBJECTS];

/** JetStream key-value bucket holding revoked token ids until they expire. */
export const REVOCATION_BUCKET = 'revoked_tokens';

/** Payload of a token revocation (value stored in the revocation bucket). */
export interface TokenRevokedEvent {
  jti: string;
  /** Token expiry, seconds since epoch: the entry is useless after it. */
  exp: number;
  revokedAt: string;
}

/**
 * Payload of an identity revocation (a deleted account): every token of the identity
 * in the tenant is refused while the entry lives (its `exp`, the longest a token issued
 * before it can be used), whatever its `jti`.
 */
export interface IdentityRevokedEvent {
  tenantId: string;
  openId: string;
  exp: number;
  revokedAt: string;
}
