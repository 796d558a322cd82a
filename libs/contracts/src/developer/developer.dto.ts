import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** Longest credential value accepted (bounds the hashing work per request). */
const MAX_CREDENTIAL_LENGTH = 1024;

const NOT_BLANK = /\S/;

/** Body of `POST .../auth` (JSON or application/x-www-form-urlencoded). */
export class TokenRequestDto {
  @ApiProperty({
    description: 'Secret of the client application.',
    example: 'demo-secret',
  })
  @IsString()
  @IsNotEmpty()
  @Matches(NOT_BLANK, { message: 'clientSecret must not be blank' })
  @MaxLength(MAX_CREDENTIAL_LENGTH)
  clientSecret!: string;

  @ApiProperty({
    description: 'Organisation user of the tenant.',
    example: 'demo@vault.local',
  })
  @IsString()
  @IsNotEmpty()
  @Matches(NOT_BLANK, { message: 'username must not be blank' })
  @MaxLength(MAX_CREDENTIAL_LENGTH)
  username!: string;

  @ApiProperty({
    description: 'Password of the organisation user.',
    example: 'demo-password',
  })
  @IsString()
  @IsNotEmpty()
  @Matches(NOT_BLANK, { message: 'password must not be blank' })
  @MaxLength(MAX_CREDENTIAL_LENGTH)
  password!: string;
}

/** Successful answer of `POST .../auth`. */
export class TokenResponseDto {
  @ApiProperty({
    description: 'Signed JWT (ES256) to send as `Authorization: Bearer <token>`.',
  })
  access_token!: string;

  @ApiProperty({
    description: 'Seconds until the token expires.',
    example: 900,
  })
  expires_in!: number;

  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' })
  token_type!: 'Bearer';
}

/**
 * Successful answer of `POST .../auth` and of `POST .../oauth/token` (RFC 6749 §5.1):
 * the access token and the refresh token that obtains the next one.
 */
export class SignInResponseDto extends TokenResponseDto {
  @ApiProperty({
    description:
      'Opaque refresh token (43 base64url characters) for `grant_type=refresh_token` at `POST .../oauth/token`. ' +
      'Single use: each use answers a new one; using a spent one again revokes every refresh token of the sign-in.',
    example: 'q3pYyW0oQ3m0a2n7bq1X8Rr4oV9c5s0Zt6uLk2JdE1w',
  })
  refresh_token!: string;
}

const TEST_RESPONSE_TYPES = ['redirect_url', 'html'] as const;
export type TestResponseType = (typeof TEST_RESPONSE_TYPES)[number];

/** Query of `GET .../test`. */
export class TestTokenQueryDto {
  @ApiPropertyOptional({
    enum: TEST_RESPONSE_TYPES,
    default: 'redirect_url',
    description: '`redirect_url` answers `{redirectUrl}`; `html` answers a page showing the token.',
  })
  @IsOptional()
  @IsIn(TEST_RESPONSE_TYPES)
  responseType?: TestResponseType;
}

/** Answer of `GET .../test?responseType=redirect_url`. */
export class TestRedirectResponseDto {
  @ApiProperty({
    description:
      'First redirect URI of the application with the token in the fragment: ' +
      '`#access_token=<jwt>&token_type=Bearer&expires_in=<seconds>`.',
    example: 'https://localhost:8443/callback#access_token=eyJ...&token_type=Bearer&expires_in=900',
  })
  redirectUrl!: string;
}

/** A public signing key as served in the JWKS document. */
export interface PublicSigningJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  kid: string;
  alg: string;
  use: 'sig';
}

export interface JwksDocument {
  keys: PublicSigningJwk[];
}

/** Scope granted by developer-module tokens (one scope covers every module for now). */
export const ACCESS_TOKEN_SCOPE = 'vault';
