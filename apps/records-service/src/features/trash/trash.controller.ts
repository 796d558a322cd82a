import { Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Principal, RestoredItemView, RestoreQueryDto, RetentionView, TrashPage, TrashQueryDto } from '@vault/contracts';
import { Access, Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { ApiPathParams, ApiProblems } from '@vault/platform/openapi';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { TrashListingService } from './trash-listing.service';
import { TrashService } from './trash.service';

const ITEM = { itemId: 'Id of a trashed vault, record or file (the `id` of a trash listing).' };

@ApiTags('trash')
@UseGuards(RoleGuard)
@Controller()
export class TrashController {
  constructor(
    private readonly listing: TrashListingService,
    private readonly trash: TrashService,
  ) {}

  @Get('vault/vault-id/:vaultId/trash')
  @Access('vault:editor')
  @ApiOperation({
    summary: "The vault's trashed records and files, newest deletion first (owners and editors).",
    description:
      'Files of a trashed record are not listed on their own: they come back with the record. ' +
      'Each item says when the purger removes it (purgeAt).',
  })
  @ApiPathParams({ vaultId: 'Vault id.' })
  @ApiOkResponse({ type: TrashPage })
  vaultTrash(@ResolvedAccess() access: VaultAccess, @Query() query: TrashQueryDto): Promise<TrashPage> {
    return this.listing.vaultTrash(access, query);
  }

  @Get('trash')
  @Authenticated()
  @ApiOperation({ summary: "The caller's trashed vaults (those it owns), newest deletion first." })
  @ApiOkResponse({ type: TrashPage })
  ownedTrash(@CurrentPrincipal() principal: Principal, @Query() query: TrashQueryDto): Promise<TrashPage> {
    return this.listing.ownedTrash(principal, query);
  }

  @Get('trash/item-id/:itemId/retention')
  @Authenticated()
  @ApiOperation({
    summary: 'What keeps a trashed vault, record or file from purge, and until when.',
    description: "The role its delete needed, as for restore and purge; the answer has the shape of a live item's …/retention.",
  })
  @ApiPathParams(ITEM)
  @ApiOkResponse({ type: RetentionView })
  @ApiProblems(403, [404, 'not_found: no such item in the trash visible to the caller.'])
  retention(@CurrentPrincipal() principal: Principal, @Param('itemId') itemId: string): Promise<RetentionView> {
    return this.trash.retentionOf(principal, itemId);
  }

  @Post('trash/item-id/:itemId/restore')
  @Authenticated()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Bring a trashed vault, record or file back whole.',
    description:
      'The role its delete needed: a vault owner for a vault; a vault owner or editor or the rec_owner for a record; ' +
      'an editor of the record for a file. A vault comes back with its records, files, collaborators, licences and ' +
      'webhooks; a record with its status and files; a file under its name (409 name_taken when a live file took it, ' +
      'unless onConflict=rename). An item of a trashed vault or record: 409 parent_in_trash.',
  })
  @ApiPathParams(ITEM)
  @ApiOkResponse({ type: RestoredItemView })
  @ApiProblems(
    403,
    [404, 'not_found: no such item in the trash visible to the caller.'],
    [409, 'name_taken, parent_in_trash, max_owned_vaults_reached or max_records_reached.'],
  )
  restore(
    @CurrentPrincipal() principal: Principal,
    @Param('itemId') itemId: string,
    @Query() query: RestoreQueryDto,
  ): Promise<RestoredItemView> {
    return this.trash.restore(principal, itemId, query.onConflict);
  }

  @Delete('trash/item-id/:itemId')
  @Authenticated()
  @ApiOperation({
    summary: 'Purge a trashed vault, record or file now (the role its delete needed).',
    description: 'Refused with 409 legal_hold (naming the hold) or retention_period (naming the date) while either covers it.',
  })
  @ApiPathParams(ITEM)
  @ApiOkResponse({ description: 'Empty body: purged.' })
  @ApiProblems(
    403,
    [404, 'not_found: no such item in the trash visible to the caller.'],
    [409, 'legal_hold or retention_period.'],
  )
  async purge(@CurrentPrincipal() principal: Principal, @Param('itemId') itemId: string): Promise<void> {
    await this.trash.purge(principal, itemId);
  }
}
