import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** Grant types of `POST .../oauth/token`. */
export const OAUTH_GRANT_TYPES = ['password', 'refresh_token'] as const;
export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];

/** Client authentication methods of `POST .../oauth/token` (RFC 8414 names). */
export const OAUTH_CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

/** The `error` values of RFC 6749 §5.2 the token endpoint answers, and `slow_down` (RFC 8628) for throttled sign-ins. */
export const OAUTH_ERRORS = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'slow_down',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

/**
 * Form fields of `POST .../oauth/token` (application/x-www-form-urlencoded, RFC 6749
 * §4.3 and §6). Described for OpenAPI; the route reads the form itself so that every
 * refusal is an RFC 6749 error body.
 */
export class OAuthTokenRequestDto {
  @ApiProperty({ enum: OAUTH_GRANT_TYPES })
  grant_type!: OAuthGrantType;

  @ApiPropertyOptional({ description: '`grant_type=password`: organisation user of the tenant.' })
  username?: string;

  @ApiPropertyOptional({ description: "`grant_type=password`: the user's password." })
  password?: string;

  @ApiPropertyOptional({ description: '`grant_type=refresh_token`: the refresh token of the previous answer.' })
  refresh_token?: string;

  @ApiPropertyOptional({ description: 'Optional; only `vault` is granted.', example: 'vault' })
  scope?: string;

  @ApiPropertyOptional({
    description: 'client_secret_post: the client id (must be the `{clientId}` of the path). Omit with client_secret_basic.',
  })
  client_id?: string;

  @ApiPropertyOptional({ description: 'client_secret_post: the client secret. Omit with client_secret_basic.' })
  client_secret?: string;
}

/** Error answer of `POST .../oauth/token` (RFC 6749 §5.2). */
export class OAuthErrorDto {
  @ApiProperty({ enum: OAUTH_ERRORS })
  error!: OAuthErrorCode;

  @ApiProperty({ description: 'Human-readable detail (never which credential was wrong in a password grant).' })
  error_description!: string;
}

/** OAuth 2.0 authorization server metadata (RFC 8414) of one client application. */
export class OAuthServerMetadataDto {
  @ApiProperty({ description: 'The issuer: the `iss` of every access token.' })
  issuer!: string;

  @ApiProperty()
  token_endpoint!: string;

  @ApiProperty()
  jwks_uri!: string;

  @ApiProperty({ enum: OAUTH_GRANT_TYPES, isArray: true })
  grant_types_supported!: OAuthGrantType[];

  @ApiProperty({ enum: OAUTH_CLIENT_AUTH_METHODS, isArray: true })
  token_endpoint_auth_methods_supported!: string[];

  @ApiProperty({ type: [String], description: 'Empty: there is no authorization endpoint.' })
  response_types_supported!: string[];

  @ApiProperty({ type: [String] })
  scopes_supported!: string[];

  @ApiProperty()
  service_documentation!: string;
}
