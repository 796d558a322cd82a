import { Body, Controller, Header, HttpCode, Ip, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConsumes,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { SignInResponseDto, TokenRequestDto } from '@vault/contracts';
import { Public } from '@vault/platform/auth';
import type { Request, Response } from 'express';
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { AuthService } from './auth.service';
import { DeviceCookies } from './device-cookies';
import { DEVICE_COOKIE_HEADER } from './oauth-token.openapi';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly devices: DeviceCookies,
  ) {}

  @Post('auth')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary:
      'Issue an access token and a refresh token for an organisation user of the tenant, through one of its client applications.',
  })
  @ApiConsumes('application/json', 'application/x-www-form-urlencoded')
  @ApiOkResponse({
    type: SignInResponseDto,
    description: 'The access token and a refresh token for `POST .../oauth/token` (grant_type=refresh_token).',
    headers: { 'Set-Cookie': DEVICE_COOKIE_HEADER },
  })
  @ApiBadRequestResponse({
    description: 'A field is missing or blank (listed in `errors`).',
  })
  @ApiUnauthorizedResponse({
    description:
      'Code `invalid_credentials`, identical for an unknown tenant or client, a client of another tenant, ' +
      'a wrong secret, an unknown user and a wrong password.',
  })
  @ApiForbiddenResponse({
    description:
      'Code `account_deleted`: the credentials are right but the identity deleted its account (user module); ' +
      'it gets no token any more.',
  })
  @ApiTooManyRequestsResponse({
    description: 'Too many failed attempts; see Retry-After.',
  })
  issue(
    @Param('tenantId') tenantId: string,
    @Param('clientId') clientId: string,
    @Body() body: TokenRequestDto,
    @Ip() ip: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SignInResponseDto> {
    return this.devices.run(req, res, () => this.auth.issueToken(tenantId, clientId, body, ip ?? 'unknown'));
  }
}
