import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  AddVaultCollaboratorDto,
  CollaboratorView,
  Principal,
  TransferVaultOwnershipDto,
  UpdateVaultCollaboratorDto,
} from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { ApiCreated } from '@vault/platform/openapi';
import { Idempotent } from '@vault/platform/idempotency';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { CollaboratorsService } from './collaborators.service';
import { VaultOwnershipService } from './vault-ownership.service';

@ApiTags('collaborators')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId')
export class VaultCollaboratorsController {
  constructor(
    private readonly collaborators: CollaboratorsService,
    private readonly ownership: VaultOwnershipService,
  ) {}

  @Get('collaborators')
  @Access('vault:info')
  @ApiOperation({
    summary: 'Members of the vault, the owner first (any member).',
  })
  @ApiOkResponse({ type: [CollaboratorView] })
  list(@ResolvedAccess() access: VaultAccess): Promise<CollaboratorView[]> {
    return this.collaborators.list('vault', access);
  }

  @ApiCreated({
    location: (r: CollaboratorView, p: Record<string, string>) =>
      `/vault/vault-id/${p['vaultId']}/collaborators/collaborator-id/${r.id}`,
    type: CollaboratorView,
  })
  @Post('collaborators')
  @Idempotent()
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Share the vault with an account of the organisation (owner only).',
  })
  @ApiNotFoundResponse({
    description: 'account_not_found: no active account of the tenant with this username or openId.',
  })
  @ApiConflictResponse({ description: 'already_collaborator.' })
  @ApiForbiddenResponse({
    description: "feature_not_in_plan: the vault's plan does not allow inviting, or this role.",
  })
  add(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: AddVaultCollaboratorDto,
  ): Promise<CollaboratorView> {
    return this.collaborators.add('vault', access, principal, body);
  }

  @Put('collaborators/collaborator-id/:collaboratorId')
  @Access('vault:owner')
  @ApiOperation({
    summary: "Change a collaborator's role (owner only; not the owner's own).",
  })
  @ApiOkResponse({ type: CollaboratorView })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('collaboratorId') id: string,
    @Body() body: UpdateVaultCollaboratorDto,
  ): Promise<CollaboratorView> {
    return this.collaborators.changeRole('vault', access, principal, id, body.role);
  }

  @Delete('collaborators/collaborator-id/:collaboratorId')
  @Access('vault:info')
  @ApiOperation({
    summary: 'Remove a collaborator (owner), or leave the vault (any member, its own id).',
  })
  @ApiOkResponse({ description: 'Empty body.' })
  @ApiConflictResponse({ description: 'owner_cannot_be_removed.' })
  async remove(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('collaboratorId') id: string,
  ): Promise<void> {
    await this.collaborators.remove('vault', access, principal, id);
  }

  @Put('owner')
  @HttpCode(200)
  @Access('vault:owner')
  @ApiOperation({
    summary: 'Transfer the ownership to a vault collaborator; the former owner becomes vault_editor.',
  })
  @ApiOkResponse({
    type: [CollaboratorView],
    description: 'The members after the transfer.',
  })
  @ApiForbiddenResponse({
    description: 'feature_not_in_plan: ownedVaults.transferVaultOwnership is "0".',
  })
  transfer(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: TransferVaultOwnershipDto,
  ): Promise<CollaboratorView[]> {
    return this.ownership.transferOwnership(access, principal, body.collaboratorId);
  }

  @Post('claim-ownership')
  @HttpCode(200)
  @Idempotent()
  @Access('vault:editor')
  @ApiOperation({
    summary: 'Take the ownership of a vault whose owner deleted its account (a vault_editor of it).',
    description:
      "Only while the owner's account is deleted; the first claim wins. The caller's vault_editor membership becomes " +
      "vault_owner (same collaborator id), the deleted owner's ends, a scheduled removal is cancelled; announced and " +
      'logged as an ownership transfer. The vault keeps its licence and plan. No body.',
  })
  @ApiOkResponse({
    type: [CollaboratorView],
    description: 'The members after the claim, the caller first as vault_owner.',
  })
  @ApiForbiddenResponse({ description: 'forbidden: the caller is a vault_viewer, vault_info or record guest.' })
  @ApiNotFoundResponse({ description: 'not_found: no role on the vault, or no such vault.' })
  @ApiConflictResponse({
    description:
      "vault_owner_active: the owner's account is not deleted (or a concurrent claim was first); " +
      'max_owned_vaults_reached: the caller owns the vaults its plans allow.',
  })
  claim(@ResolvedAccess() access: VaultAccess, @CurrentPrincipal() principal: Principal): Promise<CollaboratorView[]> {
    return this.ownership.claimOwnership(access, principal);
  }
}
