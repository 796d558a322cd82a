import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { ACCOUNT_LOCALES, AccountLocale, MFA_NOTIFICATION_TYPES, MFA_TYPES, MfaNotificationType, MfaType } from '../enums';

/** Body of `POST /accounts/account-id/{id}/mfa`. */
export class SendMfaCodeDto {
  @ApiProperty({ enum: MFA_TYPES })
  @IsIn(MFA_TYPES)
  type: MfaType;

  @ApiProperty({ enum: MFA_NOTIFICATION_TYPES })
  @IsIn(MFA_NOTIFICATION_TYPES)
  notificationType: MfaNotificationType;

  @ApiPropertyOptional({ enum: ACCOUNT_LOCALES, description: 'Language of the message; default en-US.' })
  @IsOptional()
  @IsIn(ACCOUNT_LOCALES)
  locale?: AccountLocale;
}
