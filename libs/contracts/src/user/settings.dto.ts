import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import {
  ACCOUNT_LOCALES,
  AccountLocale,
  COUNTRY_CODES,
  CountryCode,
  MFA_MODES,
  MfaMode,
  NOTIFICATION_METHODS,
  NotificationMethod,
} from '../enums';
import { ReadOnlyEcho } from './validators';

/** Account settings (docs/user-api.md, Shapes): all six fields required. */
export class AccountSettingsDto {
  @ReadOnlyEcho() id?: unknown;
  @ReadOnlyEcho() _id?: unknown;
  @ReadOnlyEcho() account?: unknown;
  @ReadOnlyEcho() createdAt?: unknown;
  @ReadOnlyEcho() updatedAt?: unknown;
  @ReadOnlyEcho() __v?: unknown;

  @ApiProperty({ enum: NOTIFICATION_METHODS })
  @IsIn(NOTIFICATION_METHODS)
  notificationMethod: NotificationMethod;

  @ApiProperty({ enum: ACCOUNT_LOCALES })
  @IsIn(ACCOUNT_LOCALES)
  communicationLanguage: AccountLocale;

  @ApiProperty({ enum: ACCOUNT_LOCALES })
  @IsIn(ACCOUNT_LOCALES)
  preferredLanguage: AccountLocale;

  @ApiProperty({ enum: COUNTRY_CODES })
  @IsIn(COUNTRY_CODES)
  country: CountryCode;

  @ApiProperty()
  @IsBoolean()
  mfaDisabled: boolean;

  @ApiProperty({ enum: MFA_MODES })
  @IsIn(MFA_MODES)
  mfaMode: MfaMode;
}
