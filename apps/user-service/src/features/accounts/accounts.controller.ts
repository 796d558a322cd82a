import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountResponse, Principal, UpdateAccountDto, USER_ERRORS, UsernameCheckResponse } from '@vault/contracts';
import { ApiProblems } from '@vault/platform/openapi';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Conditional, ETagged, IfMatch, IfMatchCondition } from '@vault/platform/http';
import { toAccountResponse } from '../../capabilities/own-account/account.view';
import { accountETag } from '../../capabilities/own-account/own-account.service';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { AccountsService } from './accounts.service';

@ApiTags('accounts')
@Controller('accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Conditional('read')
  @Get('me')
  @Authenticated()
  @ApiOperation({
    summary: 'The caller’s own account, found by the token’s identity (404 before it is created).',
    description: 'The same answer as GET /accounts/open-id/{openId} with the token’s own openId, without knowing it.',
  })
  @ApiOkResponse({ type: AccountResponse })
  @ApiProblems([404, '`not_found`: the identity has no account yet (POST /accounts creates it), or it was deleted.'])
  async me(@CurrentPrincipal() p: Principal): Promise<ETagged<AccountResponse>> {
    return tagged(await this.accounts.byOpenId(p, p.openId));
  }

  @Conditional('read')
  @Get('account-id/:id')
  @Authenticated()
  @ApiOperation({ summary: 'The caller’s account by id (another account: 404).' })
  @ApiOkResponse({ type: AccountResponse })
  async byId(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ETagged<AccountResponse>> {
    return tagged(await this.accounts.byId(p, id));
  }

  @Conditional('read')
  @Get('username/:username')
  @Authenticated()
  @ApiOperation({ summary: 'The caller’s account by username (URL-encoded; another account: 404).' })
  @ApiOkResponse({ type: AccountResponse })
  async byUsername(@CurrentPrincipal() p: Principal, @Param('username') username: string): Promise<ETagged<AccountResponse>> {
    return tagged(await this.accounts.byUsername(p, username));
  }

  @Conditional('read')
  @Get('open-id/:openId')
  @Authenticated()
  @ApiOperation({ summary: 'The caller’s account by openId (another account: 404).' })
  @ApiOkResponse({ type: AccountResponse })
  async byOpenId(@CurrentPrincipal() p: Principal, @Param('openId') openId: string): Promise<ETagged<AccountResponse>> {
    return tagged(await this.accounts.byOpenId(p, openId));
  }

  @Get('username/:username/check')
  @Authenticated()
  @ApiOperation({ summary: 'Whether an account of the tenant has this username; 200 either way.' })
  @ApiOkResponse({ type: UsernameCheckResponse })
  async check(@CurrentPrincipal() p: Principal, @Param('username') username: string): Promise<UsernameCheckResponse> {
    return { username, exists: await this.accounts.usernameExists(p, username) };
  }

  @Conditional('write')
  @Put('account-id/:id')
  @Authenticated()
  @ApiOperation({ summary: 'Replaces the updatable fields of the caller’s account.' })
  @ApiOkResponse({ type: AccountResponse })
  @ApiProblems(USER_ERRORS.usernameTaken)
  async update(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: UpdateAccountDto,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<ETagged<AccountResponse>> {
    return tagged(await this.accounts.update(p, id, dto, ifMatch));
  }
}

/** An account answer with the ETag of its version. */
function tagged(a: AccountEntity): ETagged<AccountResponse> {
  return new ETagged(toAccountResponse(a), accountETag(a));
}
