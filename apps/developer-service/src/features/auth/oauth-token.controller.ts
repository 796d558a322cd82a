import { Controller, Headers, HttpCode, Ip, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { SignInResponseDto } from '@vault/contracts';
import { Public } from '@vault/platform/auth';
import { ReadsOwnBody } from '@vault/platform/http';
import type { Request, Response } from 'express';
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { DeviceCookies } from './device-cookies';
import { OAuthErrorFilter } from './oauth.errors';
import { readOAuthForm } from './oauth-form';
import { ApiOAuthTokenEndpoint } from './oauth-token.openapi';
import { OAuthTokenService } from './oauth-token.service';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
@UseFilters(OAuthErrorFilter)
export class OAuthTokenController {
  constructor(
    private readonly tokens: OAuthTokenService,
    private readonly devices: DeviceCookies,
  ) {}

  @Post('oauth/token')
  @HttpCode(200)
  @ReadsOwnBody()
  @ApiOAuthTokenEndpoint()
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
    return this.devices.run(req, res, () =>
      this.tokens.exchange({ tenantId, clientId, form, authorization, ip: ip ?? 'unknown' }),
    );
  }
}
