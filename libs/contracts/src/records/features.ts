/** Keys of a plan's subscriptionFeatures map (contract §8), every one present in every plan. */
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
export type SubscriptionFeatures = Record<SubscriptionFeatureKey, string>;

/** Vault types (contract §2.9 shows individual; the others are this platform's choice). */
export const VAULT_TYPES = ['individual', 'business', 'family'] as const;
export type VaultType = (typeof VAULT_TYPES)[number];
export const DEFAULT_VAULT_TYPE: VaultType = 'individual';

/** The twelve record types of contract §2.10, in display order. */
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
export type RecordTypeName = (typeof RECORD_TYPE_NAMES)[number];

/** Subtype every record type has, requiring `recordSubtypeOther`. */
export const OTHER_SUBTYPE = 'other';

/** Status a record gets on creation; DELETE moves it to DELETED (soft delete). */
export const DEFAULT_RECORD_STATUS = 'ACTIVE';

/** Plain-text answers of GET /vault/check-email. */
export const CHECK_EMAIL_ANSWERS = {
  available: 'email_username_available',
  taken: 'email_username_taken',
} as const;

/** Inbox local part: letters, digits, dot, dash, underscore; starts and ends with a letter or digit. */
export const EMAIL_USERNAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$/;

/** Machine codes of records-module conflicts and refusals. */
export const RECORDS_ERROR_CODES = {
  maxRecordsReached: 'max_records_reached',
  maxOwnedVaultsReached: 'max_owned_vaults_reached',
  emailUsernameTaken: 'email_username_taken',
  unknownLicenseKey: 'unknown_license_key',
} as const;
