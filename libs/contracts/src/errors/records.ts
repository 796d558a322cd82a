import { COMMON_ERRORS } from './common';
import { codesOf, ErrorTable } from './entry';

/** Codes of the records module about vaults, records and plans. */
export const RECORDS_ERRORS = {
  maxRecordsReached: {
    code: 'max_records_reached',
    status: 409,
    meaning: 'The vault already holds the records its plan allows.',
  },
  maxOwnedVaultsReached: {
    code: 'max_owned_vaults_reached',
    status: 409,
    meaning: 'The account already owns the vaults its plans allow.',
  },
  emailUsernameTaken: {
    code: 'email_username_taken',
    status: 409,
    meaning: "The vault's inbox name is already in use.",
  },
  unknownLicenseKey: {
    code: 'unknown_license_key',
    status: 400,
    meaning: 'The licence key is not valid.',
  },
} as const satisfies ErrorTable;

/** Codes of the records module about collaborators (sharing vaults and records). */
export const COLLABORATOR_ERRORS = {
  accountNotFound: {
    code: 'account_not_found',
    status: 404,
    meaning: 'No active account of the tenant has this username or openId.',
  },
  alreadyCollaborator: {
    code: 'already_collaborator',
    status: 409,
    meaning: 'The account is already a member of the vault or record.',
  },
  collaboratorNotFound: {
    code: 'collaborator_not_found',
    status: 404,
    meaning: 'The vault or record has no member with this collaborator id.',
  },
  featureNotInPlan: {
    code: 'feature_not_in_plan',
    status: 403,
    meaning:
      "The vault's plan does not include this feature (inviting collaborators, this guest role, or transferring ownership).",
  },
  ownerCannotBeRemoved: {
    code: 'owner_cannot_be_removed',
    status: 409,
    meaning: 'The owner cannot be removed or given another role; transfer the ownership first.',
  },
  vaultOwnerActive: {
    code: 'vault_owner_active',
    status: 409,
    meaning:
      "The vault's owner account is not deleted (or a claim made the caller or another collaborator its owner): only a vault whose owner deleted its account can be claimed.",
  },
} as const satisfies ErrorTable;

/** Codes of the records module about record files. */
export const FILE_ERRORS = {
  fileNameTaken: {
    code: 'file_name_taken',
    status: 409,
    meaning: 'The record already has a file with this name.',
  },
  storageQuotaExceeded: {
    code: 'storage_quota_exceeded',
    status: 409,
    meaning: "The file does not fit in the storage the vault's plan allows.",
  },
  checksumMismatch: {
    code: 'checksum_mismatch',
    status: 400,
    meaning: 'The uploaded bytes do not match the x-checksum-sha256 header.',
  },
  uploadExceedsVaultStorage: {
    code: 'upload_exceeds_vault_storage',
    status: 413,
    meaning: "A resumable upload's Upload-Length does not fit in the storage the vault's plan allows (checked at creation).",
  },
  chunkChecksumMismatch: {
    code: 'chunk_checksum_mismatch',
    status: 460,
    meaning: 'A resumable upload chunk does not match its Upload-Checksum (tus checksum extension); the chunk was discarded.',
  },
  staleCorrelationId: {
    code: 'stale_correlation_id',
    status: 409,
    meaning: 'The correlationId is not the one of the stored file; reload the file list.',
  },
  uploadLocked: {
    code: 'upload_locked',
    status: 423,
    meaning: 'Another request is writing to this resumable upload and did not let go in time; retry (HEAD gives the offset).',
  },
  uploadBodyTooSlow: {
    code: 'upload_body_too_slow',
    status: 408,
    meaning:
      'A resumable upload chunk arrived slower than the minimum body rate (TUS_MIN_BODY_BYTES_PER_SECOND) for longer than its grace period; the bytes received are kept, Upload-Offset says how many: resume from there.',
  },
  missingFilePart: {
    code: 'missing_file_part',
    status: 400,
    meaning: 'The multipart upload has no part named "file".',
  },
  fileDamaged: {
    code: 'file_damaged',
    status: 409,
    meaning:
      'The stored bytes of the file do not authenticate against its encryption (changed or cut in storage, or its vault key destroyed): no byte is served and operators are alerted.',
  },
} as const satisfies ErrorTable;

/** Machine codes of collaborator refusals. */
export const COLLABORATOR_ERROR_CODES = codesOf(COLLABORATOR_ERRORS);

/** Machine codes of records-module conflicts and refusals. */
export const RECORDS_ERROR_CODES = codesOf(RECORDS_ERRORS);

/** Machine codes of record files (a download range uses the common code). */
export const FILE_ERROR_CODES = {
  ...codesOf(FILE_ERRORS),
  rangeNotSatisfiable: COMMON_ERRORS.rangeNotSatisfiable.code,
} as const;

/** Codes of the records module about webhook subscriptions (docs/webhooks.md). */
export const WEBHOOK_ERRORS = {
  webhookNotFound: {
    code: 'webhook_not_found',
    status: 404,
    meaning: 'The vault has no webhook subscription with this id.',
  },
  webhookDeliveryNotFound: {
    code: 'webhook_delivery_not_found',
    status: 404,
    meaning: 'The webhook subscription has no delivery with this id.',
  },
  webhookDeliveryInFlight: {
    code: 'webhook_delivery_in_flight',
    status: 409,
    meaning:
      'The delivery is being sent right now, so it is not redelivered (that would send it twice); retry once the attempt has ended (Retry-After: when it has at the latest).',
  },
  webhookTargetRefused: {
    code: 'webhook_target_refused',
    status: 400,
    meaning:
      'The webhook url is not https, does not resolve, or resolves to an address that is not public unicast (loopback, private, link-local, metadata, reserved, or an IPv6 form embedding such an IPv4 address) that WEBHOOK_ALLOWED_TARGETS does not allow.',
  },
  webhookSecretUnavailable: {
    code: 'webhook_secret_unavailable',
    status: 410,
    meaning:
      'A repeat (same Idempotency-Key) of a webhook creation whose stored answer shows a signing secret that can no longer be decrypted (its key left WEBHOOK_SECRET_KEYS); the subscription exists: rotate its secret for a new one.',
  },
} as const satisfies ErrorTable;

/** Machine codes of webhook subscription refusals. */
export const WEBHOOK_ERROR_CODES = codesOf(WEBHOOK_ERRORS);

/** Codes of the records module about the vault change feed (docs/change-feed.md). */
export const CHANGE_FEED_ERRORS = {
  cursorExpired: {
    code: 'cursor_expired',
    status: 410,
    meaning:
      'Events after this change-feed cursor were removed by retention; resync the vault, then read the feed from the start.',
  },
} as const satisfies ErrorTable;

/** Machine codes of change-feed refusals. */
export const CHANGE_FEED_ERROR_CODES = codesOf(CHANGE_FEED_ERRORS);
