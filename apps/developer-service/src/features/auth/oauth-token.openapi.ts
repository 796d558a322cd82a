import { applyDecorators } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse } from '@nestjs/swagger';
import { ApiOperation, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { OAuthErrorDto, OAuthTokenRequestDto, SignInResponseDto } from '@vault/contracts';

/** The device cookie a successful password sign-in sets (docs/developer-api.md, Device cookies). */
export const DEVICE_COOKIE_HEADER = {
  description:
    'After a password sign-in: a device cookie `vault_device_…` for this login (HttpOnly, Secure, SameSite=Strict). ' +
    "Presented at later sign-ins, it keeps them apart from strangers' failed attempts.",
  schema: { type: 'string' as const },
};

/** The OpenAPI description of `POST .../oauth/token`: form fields, RFC 6749 answers and errors. */
export const ApiOAuthTokenEndpoint = () =>
  applyDecorators(
    ApiOperation({
      summary: 'OAuth 2.0 token endpoint (RFC 6749): grant_type=password or refresh_token.',
      description:
        'Form-encoded. The client authenticates with HTTP Basic (client_secret_basic) or client_id + client_secret ' +
        'in the form (client_secret_post). Errors are RFC 6749 §5.2 bodies `{error, error_description}`, not problem bodies.',
    }),
    ApiConsumes('application/x-www-form-urlencoded'),
    ApiBody({ type: OAuthTokenRequestDto }),
    ApiOkResponse({
      type: SignInResponseDto,
      description: 'RFC 6749 §5.1; `Cache-Control: no-store`.',
      headers: { 'Set-Cookie': DEVICE_COOKIE_HEADER },
    }),
    ApiBadRequestResponse({
      type: OAuthErrorDto,
      description:
        '`invalid_request` (missing or repeated field, not form-encoded), `unsupported_grant_type`, `invalid_scope`, ' +
        '`invalid_client` (client_secret_post), `invalid_grant` (wrong user credentials, deleted account; a refresh token ' +
        'unknown, of another application or tenant, expired, revoked or reused).',
    }),
    ApiUnauthorizedResponse({
      type: OAuthErrorDto,
      description: '`invalid_client` when the client authenticated with HTTP Basic; `WWW-Authenticate: Basic`.',
    }),
    ApiTooManyRequestsResponse({
      type: OAuthErrorDto,
      description: '`slow_down`: the password grant was refused by the sign-in throttle; see Retry-After.',
    }),
  );
