import { Body, Controller, Get, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiBadRequestResponse, ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FileTextDto, Principal, SearchPageDto, SearchQueryDto, SearchSettingsDto } from '@vault/contracts';
import { Access, Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { ApiPathParams } from '@vault/platform/openapi';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { SearchService } from './search.service';

@ApiTags('search')
@ApiBearerAuth()
@Controller()
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Get('search')
  @Authenticated()
  @ApiOperation({
    summary: 'Find files by what they say, over every vault the caller may read (docs/search.md).',
  })
  @ApiOkResponse({ type: SearchPageDto })
  @ApiBadRequestResponse({ description: 'validation_failed: no q, a q over 500 characters, a bad filter or cursor.' })
  find(@CurrentPrincipal() principal: Principal, @Query() query: SearchQueryDto): Promise<SearchPageDto> {
    return this.search.search(principal, query);
  }

  @Get('vault/vault-id/:vaultId/records/record-id/:recordId/record-files/:name/text')
  @UseGuards(RoleGuard)
  @Access('record:viewer')
  @ApiOperation({ summary: "The text extracted from the file's current bytes, page by page." })
  @ApiPathParams({ name: 'File name (URL-encoded).' })
  @ApiOkResponse({ type: FileTextDto })
  @ApiNotFoundResponse({ description: 'No such vault, record or file for the caller.' })
  fileText(@ResolvedAccess() access: VaultAccess, @Param('name') name: string): Promise<FileTextDto> {
    return this.search.fileText(access, name);
  }

  @Get('vault/vault-id/:vaultId/search-settings')
  @UseGuards(RoleGuard)
  @Access('vault:viewer')
  @ApiOperation({ summary: "Whether the vault's file contents are indexed, and in which language." })
  @ApiOkResponse({ type: SearchSettingsDto })
  settings(@ResolvedAccess() access: VaultAccess): Promise<SearchSettingsDto> {
    return this.search.settings(access);
  }

  @Put('vault/vault-id/:vaultId/search-settings')
  @UseGuards(RoleGuard)
  @Access('vault:owner')
  @ApiOperation({
    summary:
      'Turn content indexing on or off (off removes the extracted text at once; it is stored unencrypted) or change its language.',
  })
  @ApiOkResponse({ type: SearchSettingsDto })
  saveSettings(@ResolvedAccess() access: VaultAccess, @Body() body: SearchSettingsDto): Promise<SearchSettingsDto> {
    return this.search.saveSettings(access, body);
  }
}
