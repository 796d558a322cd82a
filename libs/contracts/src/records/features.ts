/**
 * Keys of a plan's subscriptionFeatures map, every one present in every plan
 * (docs/records-api.md, Plans and licences).
 */
export const SUBSCRIPTION_FEATURE_KEYS = [
  'account.licensePriority',
  'account.featureAddOn',
  'account.maxOwnedVaults',
  'vault.maxVaultRecords',
  'vault.maxVaultGBs',
  'vault.maxUploadMBs',
  'ownedVaults.transferVaultOwnership',
  'ownedVaults.transferRecordOwnership',
  'guestVaults.vaultEditorAbility',
  'guestVaults.vaultViewerAbility',
  'guestVaults.vaultInfoAbility',
  'guestVaults.recordEditorAbility',
  'guestVaults.recordViewerAbility',
  'guestVaults.recordInfoAbility',
  'ownedVaults.featureInviteVaultCollaborator',
  'ownedVaults.featureInviteRecordCollaborator',
  'account.notificationsMenuAccess',
  'account.notesMenuAccess',
  'account.networkMenuAccess',
  'account.featureInbox',
  'ownedVaults.activeNotificationsPush',
  'ownedVaults.activeNotificationsEmail',
  'ownedVaults.activeNotificationsSMS',
  'guestVaults.activeNotificationsPush',
  'guestVaults.activeNotificationsEmail',
  'guestVaults.activeNotificationsSMS',
  'ownedVaults.reminderNotificationsPush',
  'ownedVaults.reminderNotificationsEmail',
  'ownedVaults.reminderNotificationsSMS',
  'guestVaults.reminderNotificationsPush',
  'guestVaults.reminderNotificationsEmail',
  'guestVaults.reminderNotificationsSMS',
  'account.guestVaultEditorAbility',
  'account.guestVaultInfoAbility',
  'account.guestVaultViewerAbility',
  'account.guestRecordEditorAbility',
  'account.guestRecordInfoAbility',
  'account.guestRecordViewerAbility',
  'account.sponsorVaults',
] as const;
export type SubscriptionFeatureKey = (typeof SUBSCRIPTION_FEATURE_KEYS)[number];

/**
 * Keys a plan may carry beside those of SUBSCRIPTION_FEATURE_KEYS (non-negative integer
 * strings; absent: the service's default): days a deleted item stays in the trash
 * (`vault.trashDays`, default TRASH_RETENTION_DAYS), days after creation before a record or
 * file may be purged (`vault.retentionDays`, default 0), unpinned file versions kept
 * (`vault.fileVersions`). docs/records-api.md, Trash and retention.
 */
export const OPTIONAL_FEATURE_KEYS = ['vault.trashDays', 'vault.retentionDays', 'vault.fileVersions'] as const;
export type OptionalFeatureKey = (typeof OPTIONAL_FEATURE_KEYS)[number];
export type SubscriptionFeatures = Record<SubscriptionFeatureKey, string>;

/** Vault types; `individual` is the default (docs/records-api.md, Vaults). */
export const VAULT_TYPES = ['individual', 'business', 'family'] as const;
export type VaultType = (typeof VAULT_TYPES)[number];
export const DEFAULT_VAULT_TYPE: VaultType = 'individual';

/** The twelve record types, in display order (docs/records-api.md, Record types). */
export const RECORD_TYPE_NAMES = [
  'identityDocs',
  'healthMedical',
  'personalFinances',
  'investments',
  'insurancePolicies',
  'realEstate',
  'transportation',
  'legalDocs',
  'careerEducation',
  'serviceAccounts',
  'collectibles',
  'wishLists',
] as const;

/** Subtype every record type has, requiring `recordSubtypeOther`. */
export const OTHER_SUBTYPE = 'other';

/** Plain-text answers of GET /vault/check-email. */
export const CHECK_EMAIL_ANSWERS = {
  available: 'email_username_available',
  taken: 'email_username_taken',
} as const;

/** Inbox local part: letters, digits, dot, dash, underscore; starts and ends with a letter or digit. */
export const EMAIL_USERNAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;
