import { Body, Controller, Header, HttpCode, Ip, Param, Post } from '@nestjs/common';
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
import { APPLICATION_PATH } from '../../capabilities/directory/application-path';
import { AuthService } from './auth.service';

@ApiTags('tokens')
@Public()
@Controller(APPLICATION_PATH)
export class AuthController {
  constructor(private readonly auth: AuthService) {}

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
  ): Promise<SignInResponseDto> {
    return this.auth.issueToken(tenantId, clientId, body, ip ?? 'unknown');
  }
}
