import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { applyDecorators, Type } from '@nestjs/common';
import { Type as TransformType } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { COUNTRY_CODES, CountryCode, GENDERS, Gender, MARITAL_STATUSES, MaritalStatus } from '../enums';
import { IsWebUrl, MAX_URL_LENGTH } from '../http/web-url';
import { AccountSettingsDto } from './settings.dto';
import { AgreementDto } from './agreement.dto';
import { AtMostOnePrimary, IsDayMonthYear, ReadOnlyEcho, UniqueBy } from './validators';

/** Longest list of emails or phones one account holds. */
export const MAX_CONTACT_ENTRIES = 20;
const TEXT = 200;

/**
 * An optional list of email or phone entries: each entry validated, at most
 * MAX_CONTACT_ENTRIES, `key` never repeated, at most one primary.
 */
function ContactList(type: () => Type<unknown>, key: string) {
  return applyDecorators(
    ApiPropertyOptional({ type: () => [type()], maxItems: MAX_CONTACT_ENTRIES }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(MAX_CONTACT_ENTRIES),
    ValidateNested({ each: true }),
    TransformType(type),
    UniqueBy(key),
    AtMostOnePrimary(),
  );
}

/** Residence (`primaryResidence`). */
export class ResidenceDto {
  @ReadOnlyEcho() id?: unknown;

  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  buildingNumber?: string;
  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  streetName?: string;
  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  unitNumber?: string;
  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  city?: string;
  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  provinceState?: string;
  @ApiPropertyOptional({ maxLength: TEXT })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  postalZip?: string;

  @ApiPropertyOptional({ enum: COUNTRY_CODES, description: 'ISO 3166 two-letter code.' })
  @IsOptional()
  @IsIn(COUNTRY_CODES)
  country?: CountryCode;
}

/** Fields shared by every email and phone entry. */
abstract class ContactEntryFields {
  @ReadOnlyEcho() _id?: unknown;

  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  primary?: boolean;

  @ApiPropertyOptional({
    readOnly: true,
    description: 'Set by the service when an MFA code sent to the entry is validated; a value sent by the client is ignored.',
  })
  @IsOptional()
  @IsBoolean()
  verified?: boolean;
}

/** An email entry with its address required (account update, `POST .../email`). */
export class EmailEntryDto extends ContactEntryFields {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @IsEmail()
  @MaxLength(254)
  address: string;
}

/** An email entry of account creation: the address defaults to the identity's email. */
export class CreateEmailEntryDto extends ContactEntryFields {
  @ApiPropertyOptional({ format: 'email', maxLength: 254, description: 'Defaults to the identity email.' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  address?: string;
}

/** A phone entry. */
export class PhoneEntryDto extends ContactEntryFields {
  @ApiProperty({ type: 'integer', minimum: 0 })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  number: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Extension.' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  ext: number;

  @ApiProperty()
  @IsBoolean()
  mobile: boolean;
}

/**
 * Account fields shared by creation and update (docs/user-api.md, Validation). The read-only
 * fields of a response may be echoed back; they are ignored.
 */
export abstract class AccountProfileDto {
  @ReadOnlyEcho() id?: unknown;
  @ReadOnlyEcho() _id?: unknown;
  @ReadOnlyEcho() active?: unknown;
  @ReadOnlyEcho() openId?: unknown;
  @ReadOnlyEcho() customerId?: unknown;
  @ReadOnlyEcho() createdAt?: unknown;
  @ReadOnlyEcho() updatedAt?: unknown;
  @ReadOnlyEcho() __v?: unknown;

  @ApiProperty({ maxLength: 100, description: 'Required (or its alias firsName).' })
  @ValidateIf((o: AccountProfileDto) => o.firsName === undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'Alias of firstName (reference spelling).' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  firsName?: string;

  @ApiProperty({ maxLength: 100, description: 'Required (or its alias LastName).' })
  @ValidateIf((o: AccountProfileDto) => o.LastName === undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  lastName?: string;

  @ApiPropertyOptional({ maxLength: 100, description: 'Alias of lastName (reference spelling).' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  LastName?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'uri',
    nullable: true,
    maxLength: MAX_URL_LENGTH,
    description: 'An https URL (http only for localhost).',
  })
  @IsOptional()
  @IsWebUrl()
  profilePhoto?: string | null;

  @ApiPropertyOptional({ type: String, example: '31/01/1990', description: 'DD/MM/YYYY, a real date.', nullable: true })
  @IsOptional()
  @IsDayMonthYear()
  dateOfBirth?: string | null;

  @ApiPropertyOptional({ enum: MARITAL_STATUSES, nullable: true })
  @IsOptional()
  @IsIn(MARITAL_STATUSES)
  maritalStatus?: MaritalStatus | null;

  @ApiPropertyOptional({ enum: GENDERS, nullable: true })
  @IsOptional()
  @IsIn(GENDERS)
  gender?: Gender | null;

  @ApiPropertyOptional({ type: () => ResidenceDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @TransformType(() => ResidenceDto)
  primaryResidence?: ResidenceDto | null;

  @ContactList(() => PhoneEntryDto, 'number')
  phones?: PhoneEntryDto[];

  @ApiPropertyOptional({ type: String, maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  referralCode?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  cobrandId?: string | null;

  @ApiPropertyOptional({ type: String, maxLength: TEXT, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(TEXT)
  defaultTeam?: string | null;
}

/** Body of `POST /accounts`. */
export class CreateAccountDto extends AccountProfileDto {
  @ApiPropertyOptional({ maxLength: 254, description: 'Defaults to the identity user name.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  username?: string;

  @ContactList(() => CreateEmailEntryDto, 'address')
  emails?: CreateEmailEntryDto[];

  @ApiPropertyOptional({ type: () => AccountSettingsDto, description: 'Defaults documented in docs/user-api.md.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @TransformType(() => AccountSettingsDto)
  settings?: AccountSettingsDto;

  @ApiPropertyOptional({ type: () => [AgreementDto] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @TransformType(() => AgreementDto)
  agreements?: AgreementDto[];

  @ApiPropertyOptional({ description: 'Single-use code from an invitation email.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  invitationCode?: string;
}

/** Body of `PUT /accounts/account-id/{id}`: replaces every updatable field. */
export class UpdateAccountDto extends AccountProfileDto {
  @ApiProperty({ maxLength: 254 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  username: string;

  @ContactList(() => EmailEntryDto, 'address')
  emails?: EmailEntryDto[];

  /** Not changed by an account update (own endpoints); accepted and ignored. */
  @ApiPropertyOptional({ readOnly: true, description: 'Ignored: use the settings endpoint.' })
  @Allow()
  settings?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: 'Ignored: use the agreements endpoint.' })
  @Allow()
  agreements?: unknown;

  @ApiPropertyOptional({ readOnly: true, description: 'Ignored: only used at account creation.' })
  @Allow()
  invitationCode?: unknown;
}
