import { Controller, Headers, HttpCode, Ip, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { OAuthErrorDto, OAuthTokenRequestDto, SignInResponseDto } from '@vault/contracts';
import { Public, ReadsOwnBody } from '@vault/platform';
import type { Request, Response } from 'express';
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { OAuthErrorFilter } from './oauth.errors';
import { readOAuthForm } from './oauth-form';
import { OAuthTokenService } from './oauth-token.service';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
@UseFilters(OAuthErrorFilter)
export class OAuthTokenController {
  constructor(private readonly tokens: OAuthTokenService) {}

  @Post('oauth/token')
  @HttpCode(200)
  @ReadsOwnBody()
  @ApiOperation({
    summary: 'OAuth 2.0 token endpoint (RFC 6749): grant_type=password or refresh_token.',
    description:
      'Form-encoded. The client authenticates with HTTP Basic (client_secret_basic) or client_id + client_secret ' +
      'in the form (client_secret_post). Errors are RFC 6749 §5.2 bodies `{error, error_description}`, not problem bodies.',
  })
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({ type: OAuthTokenRequestDto })
  @ApiOkResponse({ type: SignInResponseDto, description: 'RFC 6749 §5.1; `Cache-Control: no-store`.' })
  @ApiBadRequestResponse({
    type: OAuthErrorDto,
    description:
      '`invalid_request` (missing or repeated field, not form-encoded), `unsupported_grant_type`, `invalid_scope`, ' +
      '`invalid_client` (client_secret_post), `invalid_grant` (wrong user credentials, deleted account; a refresh token ' +
      'unknown, of another application or tenant, expired, revoked or reused).',
  })
  @ApiUnauthorizedResponse({
    type: OAuthErrorDto,
    description: '`invalid_client` when the client authenticated with HTTP Basic; `WWW-Authenticate: Basic`.',
  })
  @ApiTooManyRequestsResponse({
    type: OAuthErrorDto,
    description: '`slow_down`: the password grant was refused by the sign-in throttle; see Retry-After.',
  })
  async token(
    @Param('tenantId') tenantId: string,
    @Param('clientId') clientId: string,
    @Headers('authorization') authorization: string | undefined,
    @Ip() ip: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SignInResponseDto> {
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const form = await readOAuthForm(req);
    return this.tokens.exchange({ tenantId, clientId, form, authorization, ip: ip ?? 'unknown' });
  }
}
