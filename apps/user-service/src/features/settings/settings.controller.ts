import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountSettingsDto, Principal, SettingsResponse } from '@vault/contracts';
import { Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { Conditional, ETagged, IfMatch, IfMatchCondition } from '@vault/platform/http';
import { SettingsEntity } from '../../persistence/settings/settings.entity';
import { SettingsService } from './settings.service';
import { settingsETag, toSettingsResponse } from './settings.view';

@ApiTags('settings')
@Controller('accounts/account-id/:id/settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Conditional('read')
  @Get()
  @Authenticated()
  @ApiOperation({ summary: 'Settings of the caller’s account.' })
  @ApiOkResponse({ type: SettingsResponse })
  async get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ETagged<SettingsResponse>> {
    return tagged(await this.settings.get(p, id));
  }

  @Conditional('write')
  @Put()
  @Authenticated()
  @ApiOperation({ summary: 'Replaces the six settings fields (all required).' })
  @ApiOkResponse({ type: SettingsResponse })
  async replace(
    @CurrentPrincipal() p: Principal,
    @Param('id') id: string,
    @Body() dto: AccountSettingsDto,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<ETagged<SettingsResponse>> {
    return tagged(await this.settings.replace(p, id, dto, ifMatch));
  }
}

/** A settings answer with the ETag of its version. */
function tagged(s: SettingsEntity): ETagged<SettingsResponse> {
  return new ETagged(toSettingsResponse(s), settingsETag(s));
}
