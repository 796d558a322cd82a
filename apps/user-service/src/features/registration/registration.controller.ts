import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateAccountDto, CreatedIdResponse, Principal, USER_ERRORS } from '@vault/contracts';
import { ApiProblems } from '@vault/platform/openapi';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Idempotent } from '@vault/platform/idempotency';
import { RegistrationService } from './registration.service';

@ApiTags('accounts')
@Controller('accounts')
export class RegistrationController {
  constructor(private readonly registration: RegistrationService) {}

  @Post()
  @Idempotent()
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Creates the caller’s account (one per identity: 409 for a second).' })
  @ApiOkResponse({ type: CreatedIdResponse })
  @ApiProblems(USER_ERRORS.accountExists, USER_ERRORS.usernameTaken, USER_ERRORS.invalidInvitationCode)
  async create(@CurrentPrincipal() p: Principal, @Body() dto: CreateAccountDto): Promise<CreatedIdResponse> {
    return { id: await this.registration.register(p, dto) };
  }
}
