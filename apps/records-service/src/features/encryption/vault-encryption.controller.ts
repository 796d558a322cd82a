import { Controller, Get, Param, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { COMMON_ERRORS, FILE_ERRORS, Principal } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { ApiBearer, ApiPathParams, ApiProblems } from '@vault/platform/openapi';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { contentDisposition } from '@vault/platform/http';
import { VaultEncryptionService } from './vault-encryption.service';

/**
 * Leaving with your files (docs/encryption.md): the vault owner exports the vault's age
 * identity and files as standard `.age` files, which Debian's `age -d -i` decrypts.
 * Answers are never cached (`Cache-Control: no-store`).
 */
@ApiTags('encryption')
@ApiBearer()
@Controller('vault/vault-id/:vaultId')
@UseGuards(RoleGuard)
export class VaultEncryptionController {
  constructor(private readonly encryption: VaultEncryptionService) {}

  @Get('encryption/identity')
  @Access('vault:owner')
  @ApiOperation({
    summary:
      "The vault's age identity (AGE-SECRET-KEY-1…, text/plain): with it, `age -d -i` decrypts the vault's `.age` exports. Owner only, with a recent sign-in (the token's `auth_time` within ENCRYPTION_EXPORT_MAX_AUTH_AGE_SECONDS, 600 by default); logged.",
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'One line: the identity. `Cache-Control: no-store`.', schema: { type: 'string' } })
  @ApiProblems(401, COMMON_ERRORS.reauthenticationRequired, 403, 404, COMMON_ERRORS.serviceUnavailable, FILE_ERRORS.fileDamaged)
  async identity(@ResolvedAccess() access: VaultAccess, @CurrentPrincipal() principal: Principal, @Res() res: Response) {
    const identity = await this.encryption.identity(access, principal);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).send(`${identity}\n`);
  }

  @Get('records/record-id/:recordId/record-files/:name/age')
  @Access('vault:owner')
  @ApiOperation({
    summary: "A file's current bytes as a standard `.age` file (age header, then the encrypted payload as stored). Owner only.",
  })
  @ApiPathParams({ name: 'File name (URL-encoded).' })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The `.age` file. `Cache-Control: no-store`.', schema: { type: 'string', format: 'binary' } })
  @ApiProblems(
    401,
    403,
    404,
    [409, '`conflict`: the file is not encrypted yet (stored before encryption at rest).'],
    FILE_ERRORS.fileDamaged,
    COMMON_ERRORS.serviceUnavailable,
  )
  async ageFile(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('recordId') recordId: string,
    @Param('name') name: string,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.encryption.ageFile(access, principal, recordId, name);
    res.status(200);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Disposition', contentDisposition(file.fileName));
    res.setHeader('Content-Length', String(file.length));
    try {
      await pipeline(file.body, res);
    } catch {
      res.destroy();
    }
  }
}
