import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsNumber, Min } from 'class-validator';
import { ACCOUNT_LOCALES, AccountLocale, AGREEMENT_TYPES, AgreementType } from '../enums';
import { ReadOnlyEcho } from './validators';

/** A consent to one version of an agreement. */
export class AgreementDto {
  @ReadOnlyEcho() id?: unknown;
  @ReadOnlyEcho() _id?: unknown;
  @ReadOnlyEcho() account?: unknown;
  @ReadOnlyEcho() createdAt?: unknown;
  @ReadOnlyEcho() updatedAt?: unknown;

  @ApiProperty({ enum: ACCOUNT_LOCALES })
  @IsIn(ACCOUNT_LOCALES)
  locale: AccountLocale;

  @ApiProperty({ enum: AGREEMENT_TYPES })
  @IsIn(AGREEMENT_TYPES)
  type: AgreementType;

  @ApiProperty({ type: 'number', minimum: 0, description: 'A number on input; responses return it as a string.' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  version: number;

  @ApiProperty()
  @IsBoolean()
  consent: boolean;
}
