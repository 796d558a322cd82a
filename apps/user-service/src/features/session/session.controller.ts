import { Controller, Delete, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@vault/contracts';
import { Authenticated, CurrentPrincipal, RevocationService } from '@vault/platform/auth';

@ApiTags('session')
@Controller('accounts')
export class SessionController {
  constructor(private readonly revocations: RevocationService) {}

  @Delete('logout')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({ summary: 'Revokes the presented token on every module (empty body).' })
  @ApiOkResponse({ description: 'Revoked; the token is refused from now on.' })
  async logout(@CurrentPrincipal() p: Principal): Promise<void> {
    await this.revocations.revoke(p.tokenId, p.expiresAt);
  }
}
