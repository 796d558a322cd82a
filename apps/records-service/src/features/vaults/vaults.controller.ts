import { Body, Controller, Delete, Get, Header, HttpCode, Post, Put, Query, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiExtraModels,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import {
  CheckEmailQueryDto,
  CreateVaultDto,
  HomeQueryDto,
  IdResponse,
  LicenseView,
  Principal,
  UpdateVaultDto,
  VaultHomeView,
  VaultListPage,
  VaultListQueryDto,
  VaultView,
} from '@vault/contracts';
import { Access, Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { ApiCreated } from '@vault/platform/openapi';
import { Conditional, ETagged, IfMatch, IfMatchCondition } from '@vault/platform/http';
import { Idempotent } from '@vault/platform/idempotency';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { HomeService } from './home.service';
import { VaultsService } from './vaults.service';

@ApiTags('vaults')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault')
export class VaultsController {
  constructor(
    private readonly vaults: VaultsService,
    private readonly homes: HomeService,
  ) {}

  @ApiCreated({ location: (r: IdResponse) => `/vault/vault-id/${r.id}`, type: IdResponse })
  @Post()
  @Idempotent()
  @Authenticated()
  @ApiOperation({ summary: 'Create a vault; the caller becomes its vault_owner and it gets a licence.' })
  @ApiConflictResponse({ description: 'Inbox name taken, or the owned-vaults quota reached.' })
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateVaultDto): Promise<IdResponse> {
    return this.vaults.create(principal, body);
  }

  @Get()
  @Authenticated()
  @ApiOperation({
    summary: 'The vaults the caller sees: owned, shared with it, and those holding records shared with it.',
    description:
      "Each vault carries the caller's userVaultRole; a vault seen only through roles on some of its records has userVaultRole [] " +
      'and those roles in userRecordRole. shared=true keeps the vaults the caller does not own, shared=false the owned ones.',
  })
  @ApiExtraModels(VaultView, VaultListPage)
  @ApiOkResponse({
    description: 'The vaults, oldest first ([] when none); with page or pageSize, one page of them with its page object.',
    schema: { oneOf: [{ type: 'array', items: { $ref: getSchemaPath(VaultView) } }, { $ref: getSchemaPath(VaultListPage) }] },
  })
  list(@CurrentPrincipal() principal: Principal, @Query() query: VaultListQueryDto): Promise<VaultView[] | VaultListPage> {
    return this.vaults.list(principal, query);
  }

  @Get('check-email')
  @Authenticated()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiProduces('text/plain')
  @ApiOperation({ summary: 'Whether an inbox name is free: email_username_available or email_username_taken.' })
  @ApiOkResponse({
    description: 'Plain text.',
    content: { 'text/plain': { schema: { type: 'string', enum: ['email_username_available', 'email_username_taken'] } } },
  })
  checkEmail(@Query() query: CheckEmailQueryDto): Promise<string> {
    return this.vaults.checkEmail(query.emailUsername);
  }

  @Conditional('read')
  @Get('vault-id/:vaultId')
  @Access('vault:guest')
  @ApiOperation({ summary: 'Read a vault with the caller’s roles and the plan features.' })
  @ApiOkResponse({
    type: VaultView,
    description:
      'Vault with userVaultRole and subscriptionFeatures; a record guest sees it with userVaultRole [] and its userRecordRole.',
  })
  @ApiNotFoundResponse({ description: 'No such vault visible to the caller.' })
  get(@ResolvedAccess() access: VaultAccess): Promise<ETagged<VaultView>> {
    return this.vaults.get(access);
  }

  @ApiCreated({ location: 'self', type: VaultView, description: 'The updated vault.' })
  @Conditional('write')
  @Put('vault-id/:vaultId')
  @Access('vault:editor')
  @HttpCode(201)
  @ApiOperation({ summary: 'Update a vault (owner or editor; changing licenseKey needs the owner).' })
  @ApiForbiddenResponse({ description: 'Role too weak.' })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: UpdateVaultDto,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<ETagged<VaultView>> {
    return this.vaults.update(access, principal, body, ifMatch);
  }

  @Conditional('delete')
  @Delete('vault-id/:vaultId')
  @Access('vault:owner')
  @ApiOperation({ summary: 'Delete a vault with its records (owner only).' })
  @ApiOkResponse({ description: 'Empty body.' })
  async remove(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<void> {
    await this.vaults.remove(access, principal, ifMatch);
  }

  @Get('vault-id/:vaultId/home')
  @Access('vault:guest')
  @ApiOperation({ summary: 'The vault home: one tile per record type.' })
  @ApiOkResponse({
    type: VaultHomeView,
    description:
      'Vault home with one tile per record type; counts are of the records the caller sees (a record guest: those shared with it).',
  })
  home(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Query() query: HomeQueryDto,
  ): Promise<VaultHomeView> {
    return this.homes.home(access, principal.openId, query.locale);
  }

  @Get('vault-id/:vaultId/licenses')
  @Access('vault:viewer')
  @ApiOperation({ summary: 'The licences of a vault.' })
  @ApiOkResponse({ type: [LicenseView], description: 'Licences of the vault, oldest first.' })
  licenses(@ResolvedAccess() access: VaultAccess): Promise<LicenseView[]> {
    return this.vaults.licensesOf(access);
  }
}
