import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  IdResponse,
  Principal,
  RecordDto,
  RecordLookupView,
  RecordSearchItem,
  RecordSearchPage,
  RecordSearchQueryDto,
  TransferRecordDto,
} from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { Conditional, ETagged, IfMatch, IfMatchCondition } from '@vault/platform/http';
import { Idempotent } from '@vault/platform/idempotency';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { RecordSearchService } from './record-search.service';
import { RecordsService } from './records.service';

@ApiTags('records')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/records')
export class RecordsController {
  constructor(
    private readonly records: RecordsService,
    private readonly searches: RecordSearchService,
  ) {}

  @Post()
  @Idempotent()
  @Access('vault:editor')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a record (vault owner or editor); the caller becomes its rec_owner.' })
  @ApiOkResponse({ type: IdResponse })
  @ApiConflictResponse({ description: 'max_records_reached: the plan quota of records is reached.' })
  create(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: RecordDto,
  ): Promise<IdResponse> {
    return this.records.create(access, principal, body);
  }

  @Get()
  @Access('vault:guest')
  @ApiOperation({
    summary: 'Search the vault records; every filter optional.',
    description: 'A vault member finds every record of the vault; a record guest only the records shared with it.',
  })
  @ApiExtraModels(RecordSearchItem, RecordSearchPage)
  @ApiOkResponse({
    description: 'The matching records ([] when none); with page or pageSize, one page of them with its page object.',
    schema: {
      oneOf: [{ type: 'array', items: { $ref: getSchemaPath(RecordSearchItem) } }, { $ref: getSchemaPath(RecordSearchPage) }],
    },
  })
  search(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Query() query: RecordSearchQueryDto,
  ): Promise<RecordSearchItem[] | RecordSearchPage> {
    return this.searches.search(access, principal, query);
  }

  @Conditional('read')
  @Get('record-id/:recordId')
  @Access('record:viewer')
  @ApiOperation({
    summary: 'Look a record up with its recordDetails and files (record viewer and above).',
    description: 'vault_info and rec_info see names and metadata through the search only: their lookup is 403.',
  })
  @ApiOkResponse({ type: RecordLookupView, description: 'The record with userVaultRole and userRecordRole of the caller.' })
  @ApiForbiddenResponse({ description: 'An info role: no recordDetails, no files.' })
  @ApiNotFoundResponse({ description: 'No such record visible to the caller in this vault.' })
  lookup(@ResolvedAccess() access: VaultAccess): Promise<ETagged<RecordLookupView>> {
    return this.records.lookup(access);
  }

  @Conditional('write')
  @Put('record-id/:recordId')
  @Access('record:editor')
  @ApiOperation({ summary: 'Update a record (vault owner or editor, rec_owner or rec_editor).' })
  @ApiOkResponse({ type: IdResponse })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: RecordDto,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<ETagged<IdResponse>> {
    return this.records.update(access, principal, body, ifMatch);
  }

  @Conditional('delete')
  @Delete('record-id/:recordId')
  @Access('record:owner')
  @ApiOperation({ summary: 'Delete a record (status DELETED); vault owner/editor or rec_owner.' })
  @ApiOkResponse({ description: 'No body.' })
  async remove(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<void> {
    await this.records.remove(access, principal, ifMatch);
  }

  @Put('record-id/:recordId/transfer')
  @Access('vault:editor')
  @ApiOperation({ summary: 'Move a record to another vault; owner or editor of both vaults.' })
  @ApiOkResponse({ description: 'No body.' })
  async transfer(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('recordId') recordId: string,
    @Body() body: TransferRecordDto,
  ): Promise<void> {
    await this.records.transfer(access, principal, recordId, body.destinationVaultId);
  }
}
