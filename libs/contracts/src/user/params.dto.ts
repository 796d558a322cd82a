import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

/** Path of `GET /accounts/account-id/{id}/mfa/mfa-code/{code}`. */
export class MfaCodeParams {
  @ApiProperty()
  @IsString()
  id: string;

  @ApiProperty({ pattern: '^[0-9]{6}$', description: 'The six digits received.' })
  @Matches(/^[0-9]{6}$/, { message: 'code must be six digits' })
  code: string;
}

/** Path of `DELETE /accounts/account-id/{id}/phone/phone-number/{number}`. */
export class PhoneNumberParams {
  @ApiProperty()
  @IsString()
  id: string;

  @ApiProperty({ pattern: '^[0-9]{1,16}$' })
  @Matches(/^[0-9]{1,16}$/, { message: 'number must be a phone number (digits only)' })
  number: string;
}
