import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountSettingsDto, Principal, SettingsResponse } from '@vault/contracts';
import { Authenticated, CurrentPrincipal } from '@vault/platform';
import { SettingsService, toSettingsResponse } from './settings.service';

@ApiTags('settings')
@Controller('accounts/account-id/:id/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'Settings of the caller’s account.' })
  @ApiOkResponse({ type: SettingsResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<SettingsResponse> {
    return toSettingsResponse(await this.settings.get(p, id));
  }

  @Put()
  @Authenticated()
  @ApiOperation({ summary: 'Replaces the six settings fields (all required).' })
  @ApiOkResponse({ type: SettingsResponse })
  async replace(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: AccountSettingsDto,
  ): Promise<SettingsResponse> {
    return toSettingsResponse(await this.settings.replace(p, id, dto));
  }
}
