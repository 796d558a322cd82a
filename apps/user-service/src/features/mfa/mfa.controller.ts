import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MfaCodeParams, MfaCodeResponse, Principal, SendMfaCodeDto, USER_ERRORS } from '@vault/contracts';
import { ApiProblems, ApiCreated } from '@vault/platform/openapi';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Idempotent } from '@vault/platform/idempotency';
import { MfaService } from './mfa.service';

@ApiTags('mfa')
@Controller('accounts/account-id/:id/mfa')
export class MfaController {
  constructor(private readonly mfa: MfaService) {}

  @ApiCreated({ location: 'self', schema: { type: 'object', properties: {} } })
  @Post()
  @Idempotent()
  @Authenticated()
  @ApiOperation({ summary: 'Sends a six-digit code by email or SMS (throttled: 429 with Retry-After).' })
  @ApiProblems(USER_ERRORS.noMfaDestination)
  async send(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: SendMfaCodeDto,
  ): Promise<Record<string, never>> {
    await this.mfa.send(p, id, dto);
    return {};
  }

  @Get('mfa-code/:code')
  @Authenticated()
  @ApiOperation({ summary: 'Checks a code: 200 {msg} when valid, 400 invalid_mfa_code otherwise.' })
  @ApiOkResponse({ type: MfaCodeResponse })
  @ApiProblems(USER_ERRORS.invalidMfaCode)
  async verify(@CurrentPrincipal() p: Principal, @Param() params: MfaCodeParams): Promise<MfaCodeResponse> {
    await this.mfa.verify(p, params.id, params.code);
    return { msg: 'validated' };
  }
}
