import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ActivityLogPageDto, ActivityLogQueryDto } from '@vault/contracts';
import { Access } from '@vault/platform/auth';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { ActivityLogService } from './activity-log.service';

@ApiTags('activity log')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/log')
export class ActivityLogController {
  constructor(private readonly log: ActivityLogService) {}

  @Get()
  @Access('vault:viewer')
  @ApiOperation({
    summary: 'The vault activity log, newest first (vault viewers and up).',
    description:
      'Filters: entity, eventType, senderOpenId; locale renders message, action and time ' +
      '(English, or Spanish for es-US); page is 1-based, pageSize 1 to 100 (default 20). ' +
      '`page.pages` lists up to 10 page numbers around the current page.',
  })
  @ApiParam({ name: 'vaultId', format: 'uuid' })
  @ApiOkResponse({ type: ActivityLogPageDto })
  @ApiNotFoundResponse({ description: 'No such vault visible to the caller.' })
  list(@ResolvedAccess() access: VaultAccess, @Query() query: ActivityLogQueryDto): Promise<ActivityLogPageDto> {
    return this.log.page(access.vault, query);
  }
}
