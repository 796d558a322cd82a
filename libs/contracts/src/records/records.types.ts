import { NextCursor, PageInfoDto } from '../paging/page-info';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ACCOUNT_LOCALES, RECORD_STATUSES, type DisplayLocale, type RecordStatus } from '../enums';
import { RECORD_ROLES, VAULT_ROLES, type RecordRole, type VaultRole } from '../roles';
import type { SubscriptionFeatures } from './features';
import { RecordFileHistoryEntry } from './file-dto';

/*
 * Response shapes of the records module. They are classes so the OpenAPI description
 * documents them; services build them as plain objects.
 */

const FEATURES_SCHEMA = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Plan features by key (account.maxOwnedVaults, vault.maxVaultRecords, …), every value a string.',
} as const;

/** The caller's roles on a vault view and home. */
const USER_VAULT_ROLE = {
  enum: VAULT_ROLES,
  isArray: true,
  description: "The caller's vault role; [] for a record guest.",
} as const;
const GUEST_RECORD_ROLES = {
  enum: RECORD_ROLES,
  isArray: true,
  description:
    'For a caller without a vault role who holds roles on live records of this vault (a record guest): those roles, distinct, highest first. [] for vault members.',
} as const;

export class IdResponse {
  @ApiProperty()
  id!: string;
}

export class DisplayValue {
  @ApiProperty({ enum: ACCOUNT_LOCALES })
  locale!: DisplayLocale;

  @ApiProperty()
  value!: string;
}

/** Vault response (docs/records-api.md, Vaults). */
export class VaultView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String, description: '<emailUsername>@<inbox domain>' })
  email!: string | null;
  @ApiProperty({ nullable: true, type: String }) profilePhoto!: string | null;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty() type!: string;
  @ApiProperty() default!: boolean;
  @ApiProperty() editable!: boolean;
  @ApiProperty({ nullable: true, type: String }) brandCode!: string | null;
  @ApiProperty() active!: boolean;
  @ApiProperty({ example: 'ACTIVE' }) status!: string;
  @ApiProperty(USER_VAULT_ROLE) userVaultRole!: VaultRole[];
  @ApiProperty(GUEST_RECORD_ROLES) userRecordRole!: RecordRole[];
  @ApiProperty(FEATURES_SCHEMA) subscriptionFeatures!: SubscriptionFeatures;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** A page of the vault listing (GET /vault with `page`, `pageSize` or `cursor`). */
export class VaultListPage {
  @ApiProperty({ type: [VaultView] }) data!: VaultView[];
  @ApiProperty({ type: PageInfoDto }) page!: PageInfoDto;
  @NextCursor() nextCursor!: string | null;
}

export class HomeTile {
  @ApiProperty() name!: string;
  @ApiProperty() logo!: string;
  @ApiProperty() count!: number;
  @ApiProperty({ type: [DisplayValue] }) displayValue!: DisplayValue[];
}

/** Vault home response (docs/records-api.md, Record types). */
export class VaultHomeView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty({ nullable: true, type: String }) email!: string | null;
  @ApiProperty() default!: boolean;
  @ApiProperty() active!: boolean;
  @ApiProperty() status!: string;
  @ApiProperty() type!: string;
  @ApiProperty(USER_VAULT_ROLE) userVaultRole!: VaultRole[];
  @ApiProperty(GUEST_RECORD_ROLES) userRecordRole!: RecordRole[];
  @ApiProperty(FEATURES_SCHEMA) subscriptionFeatures!: SubscriptionFeatures;
  @ApiProperty({ description: 'True when the vault holds its plan quota of records.' }) maxRecordsReached!: boolean;
  @ApiProperty({ type: 'null', description: 'Always null: no integrations are offered.' }) integrations!: null;
  @ApiProperty({ type: [HomeTile] }) recordsType!: HomeTile[];
}

export class LogoSizes {
  @ApiProperty() large!: string;
  @ApiProperty() medium!: string;
  @ApiProperty() small!: string;
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

export class StyleSheet {
  @ApiProperty() fontFamily!: string;
  @ApiProperty() appBackground!: string;
  @ApiProperty() primaryColor!: string;
  @ApiProperty() primaryAccentColor!: string;
  @ApiProperty() primaryColorSemiTransparent!: string;
  @ApiProperty() secondaryAccentColor!: string;
  @ApiProperty() tertiaryAccentColor!: string;
  @ApiProperty() backgroundShade!: string;
  @ApiProperty() accentBackground!: string;
  @ApiProperty() headerBackground!: string;
  @ApiProperty() inactiveButton!: string;
  @ApiProperty() alertsErrors!: string;
  @ApiProperty() checkbox!: string;
  @ApiProperty() progressBar!: string;
  @ApiProperty() appCameraBackground!: string;
  @ApiProperty() successBar!: string;
}
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
] as const satisfies readonly (keyof StyleSheet)[];
export type StyleSheetKey = (typeof STYLE_SHEET_KEYS)[number];

export class AppSections {
  @ApiProperty() manageSubscriptions!: boolean;
  @ApiProperty() paymentDetails!: boolean;
  @ApiProperty() tellAFriend!: boolean;
  @ApiProperty() faqs!: boolean;
  @ApiProperty() helpAndSupport!: boolean;
  @ApiProperty() about!: boolean;
}
export const APP_SECTION_KEYS = [
  'manageSubscriptions',
  'paymentDetails',
  'tellAFriend',
  'faqs',
  'helpAndSupport',
  'about',
] as const satisfies readonly (keyof AppSections)[];
export type AppSectionKey = (typeof APP_SECTION_KEYS)[number];

/** Vault branding response (docs/records-api.md, Branding). */
export class BrandingView {
  @ApiProperty() id!: string;
  @ApiProperty() tenant!: string;
  @ApiProperty() brandCode!: string;
  @ApiProperty() brandName!: string;
  @ApiProperty({ enum: ACCOUNT_LOCALES }) locale!: string;
  @ApiProperty({ type: LogoSizes }) primaryLogoExpanded!: LogoSizes;
  @ApiProperty({ type: LogoSizes }) primaryLogoContracted!: LogoSizes;
  @ApiProperty({ type: LogoSizes }) secondaryLogo!: LogoSizes;
  @ApiProperty({ type: LogoSizes }) primaryIsoLogo!: LogoSizes;
  @ApiProperty({ type: LogoSizes }) secondaryIsoLogo!: LogoSizes;
  @ApiProperty({ type: LogoSizes }) topBanner!: LogoSizes;
  @ApiProperty({ description: 'May contain markup.' }) footerMessage!: string;
  @ApiProperty({ type: StyleSheet }) styleSheet!: StyleSheet;
  @ApiProperty({ type: AppSections }) appSections!: AppSections;
  @ApiProperty() active!: boolean;
  @ApiProperty() hideDefaultRecordTypes!: boolean;
  @ApiProperty() default!: boolean;
}

export class LicensePlanRef {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

/** Licence list item (docs/records-api.md, Plans and licences). */
export class LicenseView {
  @ApiProperty() subscriptionId!: string;
  @ApiProperty({ type: LicensePlanRef }) plan!: LicensePlanRef;
  @ApiProperty() sponsored!: boolean;
  @ApiPropertyOptional({ description: 'Present when sponsored.' }) sponsor?: string;
  @ApiProperty({ format: 'date-time' }) renewsOn!: string;
}

export class BlockSections {
  @ApiProperty() blockDescription!: boolean;
  @ApiProperty() blockFiles!: boolean;
  @ApiProperty() blockLinkedRecords!: boolean;
  @ApiProperty() blockCollaborators!: boolean;
  @ApiProperty() blockSpecificFields!: boolean;
}

/** A record type or subtype as search items show it. */
export class CatalogueRef {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() logo!: string;
  @ApiProperty({ type: [DisplayValue] }) displayValue!: DisplayValue[];
}

export class RecordSubtypeRef extends CatalogueRef {
  @ApiProperty() orderId!: number;
  @ApiProperty({ type: BlockSections }) blockSections!: BlockSections;
}

export class RecordTypeRef extends CatalogueRef {
  @ApiProperty() orderId!: number;
  @ApiProperty() vaultType!: string;
}

/** Record lookup response (docs/records-api.md, Records). */
export class RecordLookupView {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ nullable: true, type: String }) uniqueReference!: string | null;
  @ApiProperty({ nullable: true, type: String }) storageLocation!: string | null;
  @ApiProperty({ nullable: true, type: String }) recordSubtypeOther!: string | null;
  @ApiProperty({ nullable: true, type: Boolean }) editable!: boolean | null;
  @ApiProperty({ enum: RECORD_STATUSES }) status!: RecordStatus;
  @ApiProperty() active!: boolean;
  @ApiProperty() lastModifiedBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Includes cloudStorageFolder (array).' })
  recordDetails!: Record<string, unknown> & { cloudStorageFolder: unknown[] };
  @ApiProperty({ type: RecordSubtypeRef }) recordSubtype!: RecordSubtypeRef;
  @ApiProperty({ type: RecordTypeRef }) recordType!: RecordTypeRef;
  @ApiProperty({ type: [RecordFileHistoryEntry], description: 'Files of the record, newest upload first.' })
  filesHistory!: RecordFileHistoryEntry[];
  @ApiProperty({ enum: VAULT_ROLES, isArray: true }) userVaultRole!: VaultRole[];
  @ApiProperty({ enum: RECORD_ROLES, isArray: true }) userRecordRole!: RecordRole[];
}

/** A member of a record as record search items list it. */
export class RecordContributor {
  @ApiProperty() openId!: string;
  @ApiProperty({ nullable: true, type: String, description: "From the tenant's account directory; null when unknown." })
  firstName!: string | null;
  @ApiProperty({ nullable: true, type: String, description: "From the tenant's account directory; null when unknown." })
  lastName!: string | null;
  @ApiProperty({ enum: RECORD_ROLES }) role!: RecordRole;
}

/** Record search item (docs/records-api.md, Records). */
export class RecordSearchItem {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true, type: String }) storageLocation!: string | null;
  @ApiProperty({ nullable: true, type: String }) recordSubtypeOther!: string | null;
  @ApiProperty() description!: string;
  @ApiProperty({ type: CatalogueRef }) recordSubtype!: CatalogueRef;
  @ApiProperty({ type: CatalogueRef }) recordType!: CatalogueRef;
  @ApiProperty({ enum: RECORD_STATUSES }) status!: RecordStatus;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty() lastModifiedBy!: string;
  @ApiProperty({ type: [String], description: 'openIds holding a role on the record, in the order of contributorDetails.' })
  contributors!: string[];
  @ApiProperty({ type: () => [RecordContributor], description: 'The members of the record with their role and names.' })
  contributorDetails!: RecordContributor[];
  @ApiProperty() editable!: boolean;
}

/** A page of record search results (GET …/records with `page`, `pageSize` or `cursor`). */
export class RecordSearchPage {
  @ApiProperty({ type: [RecordSearchItem] }) data!: RecordSearchItem[];
  @ApiProperty({ type: PageInfoDto }) page!: PageInfoDto;
  @NextCursor() nextCursor!: string | null;
}
