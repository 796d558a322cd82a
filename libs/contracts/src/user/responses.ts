import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ACCOUNT_LOCALES,
  AGREEMENT_TYPES,
  COUNTRY_CODES,
  GENDERS,
  MARITAL_STATUSES,
  MFA_MODES,
  NOTIFICATION_METHODS,
} from '../enums';
import type { AccountLocale, AgreementType, CountryCode, Gender, MaritalStatus, MfaMode, NotificationMethod } from '../enums';

/** `{id}` answer of creations. */
export class CreatedIdResponse {
  @ApiProperty() id: string;
}

export class ResidenceResponse {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ type: String, nullable: true }) buildingNumber: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) streetName: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) unitNumber: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) city: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) provinceState: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) postalZip: string | null;
  @ApiPropertyOptional({ enum: COUNTRY_CODES, nullable: true, description: 'Two-letter code, as given.' })
  country: CountryCode | null;
}

export class EmailEntryResponse {
  @ApiProperty() _id: string;
  @ApiProperty() address: string;
  @ApiProperty() primary: boolean;
  @ApiProperty() verified: boolean;
}

export class PhoneEntryResponse {
  @ApiProperty() _id: string;
  @ApiProperty({ type: 'integer' }) number: number;
  @ApiProperty({ type: 'integer' }) ext: number;
  @ApiProperty() mobile: boolean;
  @ApiProperty() primary: boolean;
  @ApiProperty() verified: boolean;
}

/** An account as every account endpoint returns it. */
export class AccountResponse {
  @ApiProperty() id: string;
  @ApiProperty() active: boolean;
  @ApiProperty() username: string;
  @ApiProperty() firstName: string;
  @ApiProperty() lastName: string;
  @ApiProperty({ nullable: true, type: String }) profilePhoto: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'ISO 8601 (midnight UTC).' })
  dateOfBirth: string | null;
  @ApiProperty({ nullable: true, enum: MARITAL_STATUSES }) maritalStatus: MaritalStatus | null;
  @ApiProperty({ nullable: true, enum: GENDERS }) gender: Gender | null;
  @ApiProperty({ nullable: true, type: () => ResidenceResponse }) primaryResidence: ResidenceResponse | null;
  @ApiProperty({ type: () => [EmailEntryResponse] }) emails: EmailEntryResponse[];
  @ApiProperty({ type: () => [PhoneEntryResponse] }) phones: PhoneEntryResponse[];
  @ApiProperty({ nullable: true, type: String }) referralCode: string | null;
  @ApiProperty({ nullable: true, type: String }) cobrandId: string | null;
  @ApiProperty({ nullable: true, type: String }) defaultTeam: string | null;
  @ApiProperty({ description: 'Identity of the account, `<provider>|<id>`.' }) openId: string;
  @ApiProperty({ nullable: true, type: String }) customerId: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** Answer of `GET /accounts/username/{username}/check`. */
export class UsernameCheckResponse {
  @ApiProperty() username: string;
  @ApiProperty({ description: 'true when an account of the tenant has this username.' }) exists: boolean;
}

export class SettingsResponse {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'Same value as id.' }) _id: string;
  @ApiProperty({ description: 'Owning account id.' }) account: string;
  @ApiProperty({ enum: NOTIFICATION_METHODS }) notificationMethod: NotificationMethod;
  @ApiProperty({ enum: ACCOUNT_LOCALES }) communicationLanguage: AccountLocale;
  @ApiProperty({ enum: ACCOUNT_LOCALES }) preferredLanguage: AccountLocale;
  @ApiProperty({ enum: COUNTRY_CODES }) country: CountryCode;
  @ApiProperty() mfaDisabled: boolean;
  @ApiProperty({ enum: MFA_MODES }) mfaMode: MfaMode;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
  @ApiProperty({ type: 'integer', description: 'Revision, incremented by each update.' }) __v: number;
}

export class AgreementResponse {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'Same value as id.' }) _id: string;
  @ApiProperty() account: string;
  @ApiProperty({ enum: ACCOUNT_LOCALES }) locale: AccountLocale;
  @ApiProperty({ enum: AGREEMENT_TYPES }) type: AgreementType;
  @ApiProperty({ description: 'Version as a string.' }) version: string;
  @ApiProperty() consent: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** Answer of a valid MFA code. */
export class MfaCodeResponse {
  @ApiProperty({ example: 'validated' }) msg: string;
}
