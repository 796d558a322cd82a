import type { DisplayLocale, RecordStatus } from '../enums';
import type { RecordRole, VaultRole } from '../roles';
import type { SubscriptionFeatures } from './features';

export interface IdResponse {
  id: string;
}

export interface DisplayValue {
  locale: DisplayLocale;
  value: string;
}

/** Vault response (contract §2.9). */
export interface VaultView {
  id: string;
  name: string;
  email: string | null;
  profilePhoto: string | null;
  firstName: string | null;
  lastName: string | null;
  type: string;
  default: boolean;
  editable: boolean;
  brandCode: string | null;
  active: boolean;
  status: string;
  userVaultRole: VaultRole[];
  subscriptionFeatures: SubscriptionFeatures;
  createdAt: string;
  updatedAt: string;
}

export interface HomeTile {
  name: string;
  logo: string;
  count: number;
  displayValue: DisplayValue[];
}

/** Vault home response (contract §2.10). */
export interface VaultHomeView {
  id: string;
  name: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  default: boolean;
  active: boolean;
  status: string;
  type: string;
  userVaultRole: VaultRole[];
  subscriptionFeatures: SubscriptionFeatures;
  maxRecordsReached: boolean;
  integrations: null;
  recordsType: HomeTile[];
}

export interface LogoSizes {
  large: string;
  medium: string;
  small: string;
}

export const BRANDING_LOGOS = [
  'primaryLogoExpanded',
  'primaryLogoContracted',
  'secondaryLogo',
  'primaryIsoLogo',
  'secondaryIsoLogo',
  'topBanner',
] as const;
export type BrandingLogo = (typeof BRANDING_LOGOS)[number];

export const STYLE_SHEET_KEYS = [
  'fontFamily',
  'appBackground',
  'primaryColor',
  'primaryAccentColor',
  'primaryColorSemiTransparent',
  'secondaryAccentColor',
  'tertiaryAccentColor',
  'backgroundShade',
  'accentBackground',
  'headerBackground',
  'inactiveButton',
  'alertsErrors',
  'checkbox',
  'progressBar',
  'appCameraBackground',
  'successBar',
] as const;
export type StyleSheetKey = (typeof STYLE_SHEET_KEYS)[number];

export const APP_SECTION_KEYS = [
  'manageSubscriptions',
  'paymentDetails',
  'tellAFriend',
  'faqs',
  'helpAndSupport',
  'about',
] as const;
export type AppSectionKey = (typeof APP_SECTION_KEYS)[number];

/** Vault branding response (contract §2.11). */
export type BrandingView = {
  id: string;
  tenant: string;
  brandCode: string;
  brandName: string;
  locale: string;
  footerMessage: string;
  styleSheet: Record<StyleSheetKey, string>;
  appSections: Record<AppSectionKey, boolean>;
  active: boolean;
  hideDefaultRecordTypes: boolean;
  default: boolean;
} & Record<BrandingLogo, LogoSizes>;

/** Licence list item (contract §2.12). */
export interface LicenseView {
  subscriptionId: string;
  plan: { id: string; name: string };
  sponsored: boolean;
  sponsor?: string;
  renewsOn: string;
}

export interface BlockSections {
  blockDescription: boolean;
  blockFiles: boolean;
  blockLinkedRecords: boolean;
  blockCollaborators: boolean;
  blockSpecificFields: boolean;
}

/** Record lookup response (contract §2.13). */
export interface RecordLookupView {
  id: string;
  name: string;
  description: string;
  uniqueReference: string | null;
  storageLocation: string | null;
  recordSubtypeOther: string | null;
  editable: boolean | null;
  status: RecordStatus;
  active: boolean;
  lastModifiedBy: string;
  createdAt: string;
  updatedAt: string;
  recordDetails: Record<string, unknown> & { cloudStorageFolder: unknown[] };
  recordSubtype: {
    id: string;
    name: string;
    logo: string;
    orderId: number;
    displayValue: DisplayValue[];
    blockSections: BlockSections;
  };
  recordType: {
    id: string;
    name: string;
    logo: string;
    orderId: number;
    vaultType: string;
    displayValue: DisplayValue[];
  };
  filesHistory: unknown[];
  userVaultRole: VaultRole[];
  userRecordRole: RecordRole[];
}

/** Record search item (contract §2.13). */
export interface RecordSearchItem {
  id: string;
  name: string;
  storageLocation: string | null;
  recordSubtypeOther: string | null;
  description: string;
  recordSubtype: { id: string; name: string; logo: string; displayValue: DisplayValue[] };
  recordType: { id: string; name: string; logo: string; displayValue: DisplayValue[] };
  status: RecordStatus;
  updatedAt: string;
  lastModifiedBy: string;
  /** openIds holding a role on the record. */
  contributors: string[];
  editable: boolean;
}
