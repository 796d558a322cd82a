import { Body, Controller, Delete, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountResponse, EmailEntryDto, PhoneEntryDto, PhoneNumberParams, Principal, USER_ERRORS } from '@vault/contracts';
import { ApiProblems, ApiCreated } from '@vault/platform/openapi';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Idempotent } from '@vault/platform/idempotency';
import { toAccountResponse } from '../../capabilities/own-account/account.view';
import { ContactsService } from './contacts.service';

@ApiTags('emails and phones')
@Controller('accounts/account-id/:id')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @ApiCreated({ location: (_: unknown, p: Record<string, string>) => `/accounts/account-id/${p['id']}`, type: AccountResponse })
  @Post('email')
  @Idempotent()
  @Authenticated()
  @ApiOperation({ summary: 'Adds an email address (409 when the account has it already).' })
  @ApiProblems(USER_ERRORS.emailExists, USER_ERRORS.tooManyEntries)
  async addEmail(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: EmailEntryDto,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.contacts.addEmail(p, id, dto));
  }

  @Delete('email/email-address/:address')
  @Authenticated()
  @ApiOperation({ summary: 'Removes an email address (404 when absent).' })
  @ApiOkResponse({ type: AccountResponse })
  async removeEmail(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Param('address') address: string,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.contacts.removeEmail(p, id, address));
  }

  @ApiCreated({ location: (_: unknown, p: Record<string, string>) => `/accounts/account-id/${p['id']}`, type: AccountResponse })
  @Post('phone')
  @Idempotent()
  @Authenticated()
  @ApiOperation({ summary: 'Adds a phone number (409 when the account has it already).' })
  @ApiProblems(USER_ERRORS.phoneExists, USER_ERRORS.tooManyEntries)
  async addPhone(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: PhoneEntryDto,
  ): Promise<AccountResponse> {
    return toAccountResponse(await this.contacts.addPhone(p, id, dto));
  }

  @Delete('phone/phone-number/:number')
  @Authenticated()
  @ApiOperation({ summary: 'Removes a phone number (404 when absent).' })
  @ApiOkResponse({ type: AccountResponse })
  async removePhone(@CurrentPrincipal() p: Principal, @Param() params: PhoneNumberParams): Promise<AccountResponse> {
    return toAccountResponse(await this.contacts.removePhone(p, params.id, Number(params.number)));
  }
}
