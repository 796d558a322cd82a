import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { VaultStorageUsageView } from '@vault/contracts';
import { Access } from '@vault/platform/auth';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import { ResolvedAccess } from '../../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../../capabilities/access/role.guard';
import { QuotaService } from '../../../capabilities/plans/quota.service';

/** The storage a vault uses (docs/files.md, Limits and quotas). */
@ApiTags('record files')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/usage')
export class StorageUsageController {
  constructor(private readonly quota: QuotaService) {}

  @Get()
  @Access('vault:viewer')
  @ApiOperation({
    summary: 'Bytes the vault uses against vault.maxVaultGBs: current files, older versions, the trash and open uploads.',
  })
  @ApiOkResponse({ type: VaultStorageUsageView })
  @ApiNotFoundResponse({ description: 'not_found: no such vault visible to the caller.' })
  usage(@ResolvedAccess() access: VaultAccess): Promise<VaultStorageUsageView> {
    return this.quota.storageUsage(access.vault.id);
  }
}
