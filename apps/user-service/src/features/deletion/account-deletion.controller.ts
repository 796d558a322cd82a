import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Principal } from '@vault/contracts';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Conditional, IfMatch, IfMatchCondition } from '@vault/platform/http';
import { AccountDeletionService } from './account-deletion.service';

@ApiTags('accounts')
@Controller('accounts')
export class AccountDeletionController {
  constructor(private readonly deletion: AccountDeletionService) {}

  @Conditional('delete')
  @Delete('account-id/:id')
  @HttpCode(200)
  @Authenticated()
  @ApiOperation({
    summary: 'Deletes the caller’s own account (empty body); every token of the identity is revoked.',
    description:
      'The account becomes inactive and unreachable (every read of it answers 404), its personal fields are erased, ' +
      'its settings and MFA codes removed; `account.deleted.v1` is published. The identity cannot create another account ' +
      '(409 `account_exists`) and signs in no more: every module refuses its tokens (401) and the developer module ' +
      'issues it none (403 `account_deleted`). Vaults it owned alone are removed after a grace period, shared ones stay. ' +
      'Another identity’s account, or one already deleted: 404.',
  })
  @ApiOkResponse({ description: 'Deleted; every token of the identity is refused from now on.' })
  @ApiNotFoundResponse({ description: 'No such account of the caller (or already deleted).' })
  @ApiServiceUnavailableResponse({
    description: 'The identity’s tokens could not be revoked (NATS unreachable); nothing was deleted.',
  })
  async delete(@CurrentPrincipal() p: Principal, @Param('id') id: string, @IfMatch() ifMatch: IfMatchCondition): Promise<void> {
    await this.deletion.delete(p, id, ifMatch);
  }
}
