import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { BrandingQueryDto, BrandingView } from '@vault/contracts';
import { Access } from '@vault/platform/auth';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { BrandingService } from '../../capabilities/branding/branding.service';

@ApiTags('vaults')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/branding')
export class BrandingController {
  constructor(private readonly branding: BrandingService) {}

  @Get()
  @Access('vault:guest')
  @ApiOperation({ summary: 'Branding of the vault, in a locale and light or dark mode (every caller who sees the vault).' })
  @ApiOkResponse({ type: BrandingView })
  get(@ResolvedAccess() access: VaultAccess, @Query() query: BrandingQueryDto): BrandingView {
    return this.branding.view(access.vault.tenantId, access.vault.brandCode, query.locale, query.darkMode);
  }
}
