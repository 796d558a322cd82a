import { Body, Controller, Header, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InvitationDto, Principal } from '@vault/contracts';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { ApiCreated } from '@vault/platform/openapi';
import { Idempotent } from '@vault/platform/idempotency';
import { InvitationsService } from './invitations.service';

@ApiTags('invitations')
@Controller('accounts/invitations')
export class InvitationsController {
  constructor(private readonly invitations: InvitationsService) {}

  @ApiCreated({ location: 'self', schema: { type: 'boolean', enum: [true] } })
  @Post()
  @Idempotent()
  @Authenticated()
  @Header('Content-Type', 'application/json')
  @ApiOperation({ summary: 'Creates an invitation and emails its single-use code.' })
  async invite(@CurrentPrincipal() p: Principal, @Body() dto: InvitationDto): Promise<boolean> {
    await this.invitations.invite(p, dto);
    return true;
  }
}
