import { Body, Controller, Delete, Get, Param, Post, Put, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AddRecordCollaboratorDto, CollaboratorView, Principal, UpdateRecordCollaboratorDto } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { ApiCreated } from '@vault/platform/openapi';
import { Idempotent } from '@vault/platform/idempotency';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { CollaboratorsService } from './collaborators.service';

@ApiTags('collaborators')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/records/record-id/:recordId/collaborators')
export class RecordCollaboratorsController {
  constructor(private readonly collaborators: CollaboratorsService) {}

  @Get()
  @Access('record:info')
  @ApiOperation({
    summary: 'Members of the record, its rec_owner first (anyone who can see the record).',
  })
  @ApiOkResponse({ type: [CollaboratorView] })
  list(@ResolvedAccess() access: VaultAccess): Promise<CollaboratorView[]> {
    return this.collaborators.list('record', access);
  }

  @ApiCreated({
    location: (r: CollaboratorView, p: Record<string, string>) =>
      `/vault/vault-id/${p['vaultId']}/records/record-id/${p['recordId']}/collaborators/collaborator-id/${r.id}`,
    type: CollaboratorView,
  })
  @Post()
  @Idempotent()
  @Access('record:info')
  @ApiOperation({
    summary: 'Share the record with an account (the vault owner or the record owner).',
  })
  @ApiNotFoundResponse({ description: 'account_not_found.' })
  @ApiConflictResponse({ description: 'already_collaborator.' })
  @ApiForbiddenResponse({
    description: 'Not the vault or record owner, or feature_not_in_plan.',
  })
  add(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Body() body: AddRecordCollaboratorDto,
  ): Promise<CollaboratorView> {
    return this.collaborators.add('record', access, principal, body);
  }

  @Put('collaborator-id/:collaboratorId')
  @Access('record:info')
  @ApiOperation({
    summary: "Change a record collaborator's role (the vault owner or the record owner).",
  })
  @ApiOkResponse({ type: CollaboratorView })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('collaboratorId') id: string,
    @Body() body: UpdateRecordCollaboratorDto,
  ): Promise<CollaboratorView> {
    return this.collaborators.changeRole('record', access, principal, id, body.role);
  }

  @Delete('collaborator-id/:collaboratorId')
  @Access('record:info')
  @ApiOperation({
    summary: 'Remove a record collaborator (vault or record owner), or leave the record (its own id).',
  })
  @ApiOkResponse({ description: 'Empty body.' })
  @ApiConflictResponse({ description: 'owner_cannot_be_removed.' })
  async remove(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('collaboratorId') id: string,
  ): Promise<void> {
    await this.collaborators.remove('record', access, principal, id);
  }
}
