import { applyDecorators, Body, Controller, Delete, Get, Param, Post, Put, Req, Res, UseGuards } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiHeader,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiQuery,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { FILE_CHECKSUM_HEADER, FILE_TYPES, Principal, RecordFileGroup, RecordFileView, UpdateFileDto } from '@vault/contracts';
import { Access, CurrentPrincipal } from '@vault/platform/auth';
import { Conditional, ETagged, IfMatch, IfMatchCondition, ReadsOwnBody, versionETag } from '@vault/platform/http';
import { Idempotent } from '@vault/platform/idempotency';
import { ApiCreated } from '@vault/platform/openapi';
import type { Request, Response } from 'express';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { ResolvedAccess } from '../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../capabilities/access/role.guard';
import { sendFile } from './download/file-download';
import { ApiFileDownload } from './download/file-download.openapi';
import { FileBytesService } from '../../capabilities/storage/file-bytes.service';
import { FilesService } from './files.service';
import { UploadService } from './upload/upload.service';

/** Upload metadata, documented as query parameters (multipart fields are accepted too). */
const ApiUploadMetadata = () =>
  applyDecorators(
    ApiQuery({ name: 'fileName', required: true, type: String }),
    ApiQuery({ name: 'correlationId', required: true, type: String }),
    ApiQuery({ name: 'fileType', required: true, enum: FILE_TYPES }),
    ApiQuery({ name: 'uploadDetail', required: false, type: String }),
    ApiQuery({ name: 'caption', required: false, type: String, description: 'Mandatory for images.' }),
    ApiQuery({ name: 'uploadTitle', required: false, type: String }),
    ApiQuery({ name: 'fileExtension', required: false, type: String }),
    ApiQuery({
      name: 'replace',
      required: false,
      enum: ['true', 'false'],
      description: 'true: a file of this name gets a new current version instead of 409 file_name_taken.',
    }),
  );

@ApiTags('record files')
@ApiBearerAuth()
@UseGuards(RoleGuard)
@Controller('vault/vault-id/:vaultId/records/record-id/:recordId/record-files')
export class FilesController {
  constructor(
    private readonly files: FilesService,
    private readonly uploads: UploadService,
    private readonly bytes: FileBytesService,
  ) {}

  @ApiCreated({
    location: (r: RecordFileView, p: Record<string, string>) =>
      `/vault/vault-id/${p['vaultId']}/records/record-id/${p['recordId']}/record-files/${encodeURIComponent(r.fileName)}`,
    type: RecordFileView,
  })
  @Conditional('create')
  @Post()
  @Idempotent({ fingerprint: 'settled-by-handler' })
  @Access('record:editor')
  @ReadsOwnBody()
  @ApiOperation({
    summary: 'Upload a file (multipart, bytes in part "file"); metadata as query parameters or as fields before the file part.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiUploadMetadata()
  @ApiBody({ schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } })
  @ApiHeader({
    name: FILE_CHECKSUM_HEADER,
    required: false,
    description: 'SHA-256 of the file, hex or base64; a mismatch is 400.',
  })
  @ApiHeader({
    name: 'Repr-Digest',
    required: false,
    description: 'RFC 9530 digest of the file, e.g. sha-256=:<base64>: (other algorithms ignored); a mismatch is 400.',
  })
  @ApiPayloadTooLargeResponse({ description: 'payload_too_large: larger than vault.maxUploadMBs.' })
  @ApiConflictResponse({ description: 'file_name_taken, or storage_quota_exceeded (vault.maxVaultGBs).' })
  @ApiServiceUnavailableResponse({
    description: 'service_unavailable: the upload outlived FILE_UPLOAD_GRACE_SECONDS; send it again.',
  })
  async upload(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ETagged<RecordFileView>> {
    const file = await this.uploads.receiveMultipart(access, principal, req, res);
    return new ETagged(file, versionETag(file.id, file.__v));
  }

  @Get()
  @Access('record:viewer')
  @ApiOperation({ summary: 'The files of a record, grouped by correlationId.' })
  @ApiOkResponse({ type: [RecordFileGroup], description: 'Files grouped by correlationId.' })
  list(@ResolvedAccess() access: VaultAccess): Promise<RecordFileGroup[]> {
    return this.files.list(access);
  }

  @Get(':name')
  @Access('record:viewer')
  @ApiOperation({ summary: 'Download the bytes (Range, If-None-Match supported).' })
  @ApiFileDownload()
  @ApiNotFoundResponse({ description: 'No such file on the record.' })
  async download(
    @ResolvedAccess() access: VaultAccess,
    @Param('name') name: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    await sendFile(req, res, await this.files.find(access, name), this.bytes);
  }

  @Conditional('write')
  @Put(':name')
  @Access('record:editor')
  @ApiOperation({ summary: 'Update the metadata of a file (caption, uploadTitle, uploadDetail).' })
  @ApiOkResponse({ type: RecordFileView })
  @ApiConflictResponse({ description: 'stale_correlation_id: correlationId is not the stored one.' })
  update(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @Body() body: UpdateFileDto,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<ETagged<RecordFileView>> {
    return this.files.update(access, principal, name, body, ifMatch);
  }

  @Conditional('delete')
  @Delete(':name')
  @Access('record:editor')
  @ApiOperation({ summary: 'Delete a file of a record.' })
  @ApiOkResponse({ type: RecordFileView, description: 'The deleted file; its bytes are removed and the quota freed.' })
  remove(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @IfMatch() ifMatch: IfMatchCondition,
  ): Promise<RecordFileView> {
    return this.files.remove(access, principal, name, ifMatch);
  }
}
