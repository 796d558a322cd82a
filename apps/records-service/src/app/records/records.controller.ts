import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  IdResponse,
  Principal,
  RecordDto,
  RecordLookupView,
  RecordSearchItem,
  RecordSearchQueryDto,
  TransferRecordDto,
} from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform';
import type { VaultAccess } from '../access/access.service';
import { ResolvedAccess } from '../access/resolved-access.decorator';
import { RoleGuard } from '../access/role.guard';
import { RecordsService } from './records.service';

@ApiTags('records')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/records')
export class RecordsController {
  constructor(private readonly records: RecordsService) {}

  @Post()
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
  @Access('vault:viewer')
  @ApiOperation({ summary: 'Search the vault records; every filter optional.' })
  @ApiOkResponse({ type: [RecordSearchItem], description: '[] when nothing matches.' })
  search(@ResolvedAccess() access: VaultAccess, @Query() query: RecordSearchQueryDto): Promise<RecordSearchItem[]> {
    return this.records.search(access, query);
  }

  @Get('record-id/:recordId')
  @Access('record:viewer')
  @ApiOkResponse({ type: RecordLookupView })
  @ApiNotFoundResponse({ description: 'No such record visible to the caller in this vault.' })
  lookup(@ResolvedAccess() access: VaultAccess): Promise<RecordLookupView> {
    return this.records.lookup(access);
  }

  @Put('record-id/:recordId')
  @Access('record:editor')
  @ApiOkResponse({ type: IdResponse })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: RecordDto,
  ): Promise<IdResponse> {
    return this.records.update(access, principal, body);
  }

  @Delete('record-id/:recordId')
  @Access('record:owner')
  @ApiOperation({ summary: 'Delete a record (status DELETED); vault owner/editor or rec_owner.' })
  @ApiOkResponse({ description: 'No body.' })
  async remove(@ResolvedAccess() access: VaultAccess, @CurrentPrincipal() principal: Principal): Promise<void> {
    await this.records.remove(access, principal);
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
