/**
 * Shared enumerations, each defined once and used by every service, DTO and
 * test. Order follows the API contract where it lists one.
 */

export const MARITAL_STATUSES = ['single', 'rather_not_say', 'married', 'separated', 'divorced', 'widowed', 'defunct'] as const;
export type MaritalStatus = (typeof MARITAL_STATUSES)[number];

export const GENDERS = ['female', 'male', 'rather_not_say', 'other'] as const;
export type Gender = (typeof GENDERS)[number];

/** Locales of accounts, agreements and MFA. */
export const ACCOUNT_LOCALES = ['en-CA', 'es-US', 'fr-CA', 'en-US'] as const;
export type AccountLocale = (typeof ACCOUNT_LOCALES)[number];

/** Locales accepted by record search and activity log filters. */
export const FILTER_LOCALES = ['en-CA', 'es-US', 'en-US'] as const;
export type FilterLocale = (typeof FILTER_LOCALES)[number];

/** Every locale the platform renders reference data in (display values, branding). */
export const DISPLAY_LOCALES = ACCOUNT_LOCALES;
export type DisplayLocale = AccountLocale;
export const DEFAULT_LOCALE: DisplayLocale = 'en-US';

export const NOTIFICATION_METHODS = ['push', 'email', 'sms'] as const;
export type NotificationMethod = (typeof NOTIFICATION_METHODS)[number];

export const MFA_MODES = ['sometimes', 'everyTime', 'never'] as const;
export type MfaMode = (typeof MFA_MODES)[number];

export const AGREEMENT_TYPES = ['tos', 'privacy_policies', 'anti_spam'] as const;
export type AgreementType = (typeof AGREEMENT_TYPES)[number];

export const MFA_TYPES = ['email', 'sms'] as const;
export type MfaType = (typeof MFA_TYPES)[number];

export const MFA_NOTIFICATION_TYPES = ['mfaEmail'] as const;
export type MfaNotificationType = (typeof MFA_NOTIFICATION_TYPES)[number];

export const FILE_TYPES = ['image', 'document', 'cloud'] as const;
export type FileType = (typeof FILE_TYPES)[number];

export const RECORD_STATUSES = ['ACTIVE', 'INACTIVE', 'CLOSED', 'DRAFT', 'DELETED'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

export const DARK_MODES = ['darkMode', 'lightMode'] as const;
export type DarkMode = (typeof DARK_MODES)[number];

/** Activity log entity kinds (docs/activity-log.md, Query parameters). */
export const LOG_ENTITIES = [
  'Vault',
  'Record',
  'File',
  'Network',
  'License',
  'Inbox',
  'Subscription',
  'Notification',
  'Note',
] as const;
export type LogEntity = (typeof LOG_ENTITIES)[number];

/** Activity log event types (docs/activity-log.md, Query parameters). */
export const LOG_EVENT_TYPES = ['Create', 'Delete', 'Update', 'Export'] as const;
export type LogEventType = (typeof LOG_EVENT_TYPES)[number];

/** ISO 3166 alpha-2 codes, in the order the API contract lists them. */
export const COUNTRY_CODES = [
  // row 1
  'AF',
  'AX',
  'AL',
  'DZ',
  'AS',
  'AD',
  'AO',
  'AI',
  'AQ',
  'AG',
  'AR',
  'AM',
  'AW',
  'AU',
  'AT',
  'AZ',
  'BS',
  'BH',
  'BD',
  'BB',
  'BY',
  'BE',
  'BZ',
  'BJ',
  'BM',
  // row 2
  'BT',
  'BO',
  'BA',
  'BW',
  'BV',
  'BR',
  'IO',
  'BN',
  'BG',
  'BF',
  'BI',
  'KH',
  'CM',
  'CA',
  'CV',
  'KY',
  'CF',
  'TD',
  'CL',
  'CN',
  'CX',
  'CC',
  'CO',
  'KM',
  'CG',
  // row 3
  'CD',
  'CK',
  'CR',
  'CI',
  'HR',
  'CU',
  'CY',
  'CZ',
  'DK',
  'DJ',
  'DM',
  'DO',
  'EC',
  'EG',
  'SV',
  'GQ',
  'ER',
  'EE',
  'ET',
  'FK',
  'FO',
  'FJ',
  'FI',
  'FR',
  'GF',
  // row 4
  'PF',
  'TF',
  'GA',
  'GM',
  'GE',
  'DE',
  'GH',
  'GI',
  'GR',
  'GL',
  'GD',
  'GP',
  'GU',
  'GT',
  'GG',
  'GN',
  'GW',
  'GY',
  'HT',
  'HM',
  'VA',
  'HN',
  'HK',
  'HU',
  'IS',
  // row 5
  'IN',
  'ID',
  'IR',
  'IQ',
  'IE',
  'IM',
  'IL',
  'IT',
  'JM',
  'JP',
  'JE',
  'JO',
  'KZ',
  'KE',
  'KI',
  'KR',
  'KW',
  'KG',
  'LA',
  'LV',
  'LB',
  'LS',
  'LR',
  'LY',
  'LI',
  // row 6
  'LT',
  'LU',
  'MO',
  'MK',
  'MG',
  'MW',
  'MY',
  'MV',
  'ML',
  'MT',
  'MH',
  'MQ',
  'MR',
  'MU',
  'YT',
  'MX',
  'FM',
  'MD',
  'MC',
  'MN',
  'ME',
  'MS',
  'MA',
  'MZ',
  'MM',
  // row 7
  'NA',
  'NR',
  'NP',
  'NL',
  'AN',
  'NC',
  'NZ',
  'NI',
  'NE',
  'NG',
  'NU',
  'NF',
  'MP',
  'NO',
  'OM',
  'PK',
  'PW',
  'PS',
  'PA',
  'PG',
  'PY',
  'PE',
  'PH',
  'PN',
  'PL',
  // row 8
  'PT',
  'PR',
  'QA',
  'RE',
  'RO',
  'RU',
  'RW',
  'BL',
  'SH',
  'KN',
  'LC',
  'MF',
  'PM',
  'VC',
  'WS',
  'SM',
  'ST',
  'SA',
  'SN',
  'RS',
  'SC',
  'SL',
  'SG',
  'SK',
  'SI',
  // row 9
  'SB',
  'SO',
  'ZA',
  'GS',
  'ES',
  'LK',
  'SD',
  'SR',
  'SJ',
  'SZ',
  'SE',
  'CH',
  'SY',
  'TW',
  'TJ',
  'TZ',
  'TH',
  'TL',
  'TG',
  'TK',
  'TO',
  'TT',
  'TN',
  'TR',
  'TM',
  // row 10
  'TC',
  'TV',
  'UG',
  'UA',
  'AE',
  'GB',
  'US',
  'UM',
  'UY',
  'UZ',
  'VU',
  'VE',
  'VN',
  'VG',
  'VI',
  'WF',
  'EH',
  'YE',
  'ZM',
  'ZW',
] as const;
export type CountryCode = (typeof COUNTRY_CODES)[number];
