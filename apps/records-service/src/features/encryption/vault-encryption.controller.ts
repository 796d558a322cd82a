import { Controller, Get, Headers, Param, Req, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { COMMON_ERRORS, FILE_ERRORS, Principal } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { ApiBearer, ApiPathParams, ApiProblems } from '@vault/platform/openapi';
import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { contentDisposition } from '@vault/platform/http';
import { ApiAgeExport } from './vault-encryption.openapi';
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
    summary:
      "A file's current bytes as a standard `.age` file (age header, then the encrypted payload as stored), whole or one range of it. Owner only; every answer that sends bytes is recorded as an export.",
  })
  @ApiPathParams({ name: 'File name (URL-encoded).' })
  @ApiAgeExport()
  async ageFile(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('recordId') recordId: string,
    @Param('name') name: string,
    @Headers('range') range: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const headOnly = req.method === 'HEAD';
    const file = await this.encryption.ageFile(access, principal, recordId, name, { range, ifRange, headOnly });
    res.status(file.range ? 206 : 200);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Disposition', contentDisposition(file.fileName));
    // ranges only of bytes the same request gives again (an envelope stored for this vault)
    res.setHeader('Accept-Ranges', file.etag ? 'bytes' : 'none');
    if (file.etag) res.setHeader('ETag', file.etag);
    const { start, end } = file.range ?? { start: 0, end: file.length - 1 };
    res.setHeader('Content-Length', String(end - start + 1));
    if (file.range) res.setHeader('Content-Range', `bytes ${start}-${end}/${file.length}`);
    // a body longer or shorter than Content-Length fails the answer instead of being cut by the client
    res.strictContentLength = true;
    try {
      await pipeline(file.body, res);
    } catch {
      res.destroy();
    }
  }
}
