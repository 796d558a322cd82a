import { Body, Controller, Get, HttpCode, Param, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { FileVersionView, PinFileVersionDto, Principal } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import type { Request, Response } from 'express';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import { ResolvedAccess } from '../../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../../capabilities/access/role.guard';
import { FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { sendFile } from '../download/file-download';
import { ApiFileDownload } from '../download/file-download.openapi';
import { FileVersionsService } from './file-versions.service';

const NOT_FOUND = 'not_found: no such vault, record, file or live version visible to the caller.';
const VERSION_PARAM = { name: 'versionId', description: 'A version id from the versions list.' };

/** Versions of a record file (docs/files.md, Versions). */
@ApiTags('record files')
@ApiBearerAuth()
@ApiParam({ name: 'name', description: 'File name (URL-encoded).' })
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/records/record-id/:recordId/record-files/:name/versions')
export class FileVersionsController {
  constructor(
    private readonly versions: FileVersionsService,
    private readonly bytes: FileBytesService,
  ) {}

  @Get()
  @Access('record:viewer')
  @ApiOperation({ summary: 'The live versions of the file, newest first; the current one has current: true.' })
  @ApiOkResponse({ type: [FileVersionView] })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  list(@ResolvedAccess() access: VaultAccess, @Param('name') name: string): Promise<FileVersionView[]> {
    return this.versions.list(access, name);
  }

  @Get('version-id/:versionId')
  @Access('record:viewer')
  @ApiOperation({ summary: 'Download one version (Range, If-None-Match and If-Range as the file download).' })
  @ApiParam(VERSION_PARAM)
  @ApiFileDownload()
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async download(
    @ResolvedAccess() access: VaultAccess,
    @Param('name') name: string,
    @Param('versionId') versionId: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await sendFile(req, res, await this.versions.source(access, name, versionId), this.bytes);
  }

  @Post('version-id/:versionId/restore')
  @HttpCode(201)
  @Access('record:editor')
  @ApiOperation({
    summary:
      'Make a new current version with the bytes of this one (no bytes copied; older versions thinned per vault.fileVersions).',
  })
  @ApiParam(VERSION_PARAM)
  @ApiCreatedResponse({
    type: FileVersionView,
    description: 'The new current version.',
    headers: { Location: { description: 'Path of the new version (download).', required: true, schema: { type: 'string' } } },
  })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  async restore(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Param('versionId') versionId: string,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FileVersionView> {
    const created = await this.versions.restore(access, principal, name, versionId);
    const base = req.originalUrl.split('?')[0].replace(/\/version-id\/[^/]+\/restore$/, '');
    res.setHeader('Location', `${base}/version-id/${created.id}`);
    return created;
  }

  @Put('version-id/:versionId')
  @Access('record:editor')
  @ApiOperation({ summary: 'Pin (never thinned) or unpin a version; an unpinned old version may go to the trash at once.' })
  @ApiParam(VERSION_PARAM)
  @ApiOkResponse({ type: FileVersionView })
  @ApiNotFoundResponse({ description: NOT_FOUND })
  pin(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Param('versionId') versionId: string,
    @Body() body: PinFileVersionDto,
  ): Promise<FileVersionView> {
    return this.versions.pin(access, principal, name, versionId, body.pinned);
  }
}
