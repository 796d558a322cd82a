import { Body, Controller, Delete, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { HoldListQueryDto, LegalHoldView, PlaceHoldDto, Principal, RetentionView } from '@vault/contracts';
import { Access, Authenticated, CurrentPrincipal } from '@vault/platform/auth';
import { ApiPathParams, ApiProblems, headersOf } from '@vault/platform/openapi';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import type { Response } from 'express';
import { LegalHoldsService } from './legal-holds.service';

const COMPLIANCE_403: [number, string] = [403, 'compliance_role_required: the token has no compliance role.'];
const RECORD_PATH = 'vault/vault-id/:vaultId/records/record-id/:recordId';

@ApiTags('legal holds')
@UseGuards(RoleGuard)
@Controller()
export class LegalHoldsController {
  constructor(private readonly holds: LegalHoldsService) {}

  @Post('legal-holds')
  @Authenticated()
  @ApiOperation({
    summary: 'Place a legal hold on a vault, a record or a file of the tenant (compliance officers).',
    description:
      'Deletes still move what it covers to the trash, but no purge (by hand, when due, version thinning, the removal ' +
      "of a deleted owner's vault) happens until it is released: those answer 409 legal_hold naming it.",
  })
  @ApiResponse({ status: 201, type: LegalHoldView, description: 'Placed.', headers: headersOf(['Location'], ['Location']) })
  @ApiProblems(COMPLIANCE_403, [404, 'not_found: no such vault, record or file in the tenant.'])
  async place(
    @CurrentPrincipal() principal: Principal,
    @Body() body: PlaceHoldDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LegalHoldView> {
    const hold = await this.holds.place(principal, body);
    res.setHeader('Location', `/api/v1/legal-holds/hold-id/${hold.id}`);
    return hold;
  }

  @Get('legal-holds/hold-id/:holdId')
  @Authenticated()
  @ApiOperation({ summary: 'One legal hold of the tenant (compliance officers).' })
  @ApiPathParams({ holdId: 'Legal hold id.' })
  @ApiOkResponse({ type: LegalHoldView })
  @ApiProblems(COMPLIANCE_403, [404, 'not_found: no such legal hold.'])
  get(@CurrentPrincipal() principal: Principal, @Param('holdId') holdId: string): Promise<LegalHoldView> {
    return this.holds.get(principal, holdId);
  }

  @Get('legal-holds')
  @Authenticated()
  @ApiOperation({ summary: "The tenant's legal holds, newest first (compliance officers)." })
  @ApiOkResponse({ type: [LegalHoldView] })
  @ApiProblems(COMPLIANCE_403)
  list(@CurrentPrincipal() principal: Principal, @Query() query: HoldListQueryDto): Promise<LegalHoldView[]> {
    return this.holds.list(principal, query);
  }

  @Delete('legal-holds/hold-id/:holdId')
  @Authenticated()
  @ApiOperation({ summary: 'Release a legal hold (compliance officers); the hold stays listed as released.' })
  @ApiPathParams({ holdId: 'Legal hold id.' })
  @ApiOkResponse({ type: LegalHoldView })
  @ApiProblems(COMPLIANCE_403, [404, 'not_found: no such legal hold.'], [409, 'hold_released: released already.'])
  release(@CurrentPrincipal() principal: Principal, @Param('holdId') holdId: string): Promise<LegalHoldView> {
    return this.holds.release(principal, holdId);
  }

  @Get('vault/vault-id/:vaultId/retention')
  @Access('vault:viewer')
  @ApiOperation({ summary: 'What keeps the vault (and all in it) from purge, and until when.' })
  @ApiPathParams({ vaultId: 'Vault id.' })
  @ApiOkResponse({ type: RetentionView })
  vaultRetention(@ResolvedAccess() access: VaultAccess): Promise<RetentionView> {
    return this.holds.retentionOf(access);
  }

  @Get(`${RECORD_PATH}/retention`)
  @Access('record:viewer')
  @ApiOperation({ summary: 'What keeps the record (and its files) from purge, and until when.' })
  @ApiPathParams({ vaultId: 'Vault id.', recordId: 'Record id.' })
  @ApiOkResponse({ type: RetentionView })
  recordRetention(@ResolvedAccess() access: VaultAccess): Promise<RetentionView> {
    return this.holds.retentionOf(access);
  }

  @Get(`${RECORD_PATH}/record-files/:name/retention`)
  @Access('record:viewer')
  @ApiOperation({ summary: 'What keeps the file from purge, and until when.' })
  @ApiPathParams({ vaultId: 'Vault id.', recordId: 'Record id.', name: 'File name.' })
  @ApiOkResponse({ type: RetentionView })
  fileRetention(@ResolvedAccess() access: VaultAccess, @Param('name') name: string): Promise<RetentionView> {
    return this.holds.retentionOf(access, name);
  }
}
