import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** Body of `POST /accounts/invitations`. */
export class InvitationDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
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

  @ApiPropertyOptional({ maxLength: 100 })
  @IsOptional()
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

  @ApiProperty({ format: 'email', maxLength: 254 })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({ maxLength: 32, example: '+1 613 555 0100' })
  @IsOptional()
  @IsString()
  @Matches(/^\+?[0-9 ().-]{3,32}$/, { message: 'phone must be a phone number' })
  phone?: string;
}
