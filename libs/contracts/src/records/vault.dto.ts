import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { ACCOUNT_LOCALES, DARK_MODES, type AccountLocale, type DarkMode } from '../enums';
import { EMAIL_USERNAME_PATTERN, VAULT_TYPES, type VaultType } from './features';
import { ReadOnlyEchoes } from './read-only-echoes';
import { IsWebUrl, MAX_URL_LENGTH } from '../http/web-url';
import { CursorParam, PageNumber, PageSize } from '../paging/page-info';

/** Optional, but null is not a value: the field is validated whenever it is present. */
const IsOptionalNotNull = () => ValidateIf((_: object, value: unknown) => value !== undefined);

const EMAIL_USERNAME_MESSAGE =
  'emailUsername must be 1 to 64 letters, digits, dots, dashes or underscores, starting and ending with a letter or digit';

/** Fields shared by vault creation and update, all optional (docs/records-api.md, Vaults). */
export class VaultFieldsDto extends ReadOnlyEchoes {
  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    description: 'Local part of the vault inbox address; unique across vaults. Null removes the inbox name.',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @Matches(EMAIL_USERNAME_PATTERN, { message: EMAIL_USERNAME_MESSAGE })
  emailUsername?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    format: 'uri',
    maxLength: MAX_URL_LENGTH,
    description: 'An https URL (http only for localhost).',
  })
  @IsOptional()
  @IsWebUrl()
  profilePhoto?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  firstName?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: 100, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  lastName?: string | null;

  @ApiPropertyOptional({ description: 'Whether this is the account default vault.' })
  @IsOptionalNotNull()
  @IsBoolean()
  default?: boolean;

  @ApiPropertyOptional()
  @IsOptionalNotNull()
  @IsBoolean()
  editable?: boolean;

  @ApiPropertyOptional({ description: 'Licence key of a configured plan; unknown keys are refused.' })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  licenseKey?: string;

  @ApiPropertyOptional({
    type: String,
    description: 'Branding code configured for the tenant; null selects the default brand.',
    nullable: true,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  brandCode?: string | null;
}

/** POST /vault body. */
export class CreateVaultDto extends VaultFieldsDto {
  @ApiPropertyOptional({ enum: VAULT_TYPES, default: 'individual' })
  @IsOptionalNotNull()
  @IsIn(VAULT_TYPES)
  type?: VaultType;
}

/** PUT /vault/vault-id/{vaultId} body (type cannot change). */
export class UpdateVaultDto extends VaultFieldsDto {}

/** GET /vault/check-email query. */
export class CheckEmailQueryDto {
  @ApiProperty()
  @IsString()
  @Matches(EMAIL_USERNAME_PATTERN, { message: EMAIL_USERNAME_MESSAGE })
  emailUsername!: string;
}

/** GET /vault/vault-id/{vaultId}/branding query. */
export class BrandingQueryDto {
  @ApiPropertyOptional({ enum: ACCOUNT_LOCALES })
  @IsOptional()
  @IsIn(ACCOUNT_LOCALES)
  locale?: AccountLocale;

  @ApiPropertyOptional({ enum: DARK_MODES })
  @IsOptional()
  @IsIn(DARK_MODES)
  darkMode?: DarkMode;
}

/** GET /vault/vault-id/{vaultId}/home query. */
export class HomeQueryDto {
  @ApiPropertyOptional({ enum: ACCOUNT_LOCALES })
  @IsOptional()
  @IsIn(ACCOUNT_LOCALES)
  locale?: AccountLocale;
}

/** Values of the `shared` filter of the vault listing. */
export const SHARED_FILTERS = ['true', 'false'] as const;
export type SharedFilter = (typeof SHARED_FILTERS)[number];

/** GET /vault query (docs/records-api.md, Vault listing). */
export class VaultListQueryDto {
  @ApiPropertyOptional({
    enum: SHARED_FILTERS,
    description:
      'true: only vaults the caller does not own (shared with it through a vault role or roles on some of their records); false: only the vaults it owns; absent: both.',
  })
  @IsOptional()
  @IsIn(SHARED_FILTERS)
  shared?: SharedFilter;

  @PageNumber(
    'Pages the listing: with `page`, `pageSize` or `cursor` the answer is `{data, page, nextCursor}` (VaultListPage); without any, the plain array.',
  )
  page?: number;

  @CursorParam('Continue with the page after the one that answered this `nextCursor` (same filters). Not together with `page`.')
  cursor?: string;

  @PageSize()
  pageSize?: number;
}
