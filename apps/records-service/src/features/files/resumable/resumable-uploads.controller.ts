import { Controller, Delete, Head, HttpCode, Options, Param, Patch, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiHeader, ApiNoContentResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FILE_ERRORS, Principal } from '@vault/contracts';
import { Access, CurrentPrincipal, OptionallyAuthenticated, Public } from '@vault/platform/auth';
import { ReadsOwnBody } from '@vault/platform/http';
import { ApiIdempotencyKey, IDEMPOTENCY_REPLAYED_HEADER } from '@vault/platform/idempotency';
import { ApiProblems } from '@vault/platform/openapi';
import type { Request, Response } from 'express';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import { ResolvedAccess } from '../../../capabilities/access/resolved-access.decorator';
import { RoleGuard } from '../../../capabilities/access/role.guard';
import { RECORD_FILE_ID_HEADER, RECORD_FILE_URL_HEADER } from './resumable-completion';
import { ResumableUploadService } from './resumable-upload.service';
import { CHUNK_ALGORITHMS } from './tus-metadata';
import { TUS_EXTENSIONS, TUS_VERSION } from './tus-preconditions';
import { CREATION_HEADERS, ResumableCreationKeys } from './resumable-creation-keys';
import { TusDiscoveryService } from './tus-discovery.service';

const ROUTE = 'vault/vault-id/:vaultId/records/record-id/:recordId/uploads';

const tusResumable = ApiHeader({
  name: 'Tus-Resumable',
  required: true,
  description: '1.0.0',
});
const uploadOffset = ApiHeader({
  name: 'Upload-Offset',
  required: true,
  description: 'Where this chunk starts (the offset HEAD reported).',
});

/**
 * Resumable uploads, tus 1.0 (docs/files.md, Resumable uploads): the protocol is
 * served by @tus/server through ResumableUploadService, after the platform guard and
 * RoleGuard (record editors and owners only). Each upload belongs to its creator.
 */
@ApiTags('record files')
@ApiBearerAuth()
@ApiProblems([412, 'tus: Tus-Resumable is missing or names a version other than 1.0.0 (the answer names it in Tus-Version).'])
@UseGuards(RoleGuard)
@Controller(ROUTE)
export class ResumableUploadsController {
  constructor(
    private readonly resumable: ResumableUploadService,
    private readonly creationKeys: ResumableCreationKeys,
  ) {}

  @Post()
  @ApiProblems(413, 415)
  @Access('record:editor')
  @ReadsOwnBody()
  @ApiOperation({
    summary: 'Create a resumable upload (tus creation, creation-with-upload); Location is the upload URL.',
    description:
      'Upload-Metadata (tus: comma-separated "key base64(value)") carries fileName, correlationId, fileType, caption ' +
      '(images), uploadTitle, uploadDetail, fileExtension, contentType and optionally sha256 (whole file, hex or base64). ' +
      'Refused before any byte: 400 metadata, 403 viewer, 404, 409 file_name_taken, 413 payload_too_large (vault.maxUploadMBs) ' +
      'or storage_quota_exceeded (vault.maxVaultGBs, counting open uploads), 429 too many open uploads. ' +
      `With Idempotency-Key, a repeat answers the first creation again (${IDEMPOTENCY_REPLAYED_HEADER}: true, same Location ` +
      "and Upload-Expires) without a second upload, with the upload's current Upload-Offset while it is open; " +
      'bytes a repeat carries are not appended.',
  })
  @ApiIdempotencyKey(`set of creation headers (${CREATION_HEADERS.join(', ')})`)
  @tusResumable
  @ApiHeader({
    name: 'Upload-Length',
    required: true,
    description: 'Size of the whole file, bytes.',
  })
  @ApiHeader({ name: 'Upload-Metadata', required: true })
  @ApiConsumes('application/offset+octet-stream')
  @ApiResponse({
    status: 201,
    description: 'Created; headers Location, Upload-Expires (and Upload-Offset with a body).',
  })
  create(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.creationKeys.create(access, principal, req, res);
  }

  @Head(':uploadId')
  @ApiProblems(FILE_ERRORS.uploadLocked)
  @Access('record:editor')
  @ApiOperation({
    summary: "Where the caller's upload stands: Upload-Offset, Upload-Length (404 for anyone else's).",
  })
  @tusResumable
  @ApiResponse({
    status: 200,
    description: 'Headers Upload-Offset, Upload-Length, Upload-Metadata, Cache-Control: no-store.',
  })
  @ApiResponse({ status: 410, description: 'The upload expired.' })
  offset(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.resumable.handle(access, principal, req, res);
  }

  @Patch(':uploadId')
  @ApiProblems(413, 415, FILE_ERRORS.uploadBodyTooSlow, FILE_ERRORS.uploadLocked)
  @Access('record:editor')
  @ReadsOwnBody()
  @ApiOperation({
    summary: 'Append a chunk (Content-Type: application/offset+octet-stream).',
    description:
      `The answer to the chunk that completes the upload carries ${RECORD_FILE_ID_HEADER} and ${RECORD_FILE_URL_HEADER} ` +
      '(the download path of the new record file); its refusals are those of the multipart upload ' +
      '(400 checksum_mismatch against the sha256 metadata, 409 file_name_taken or storage_quota_exceeded, 503).',
  })
  @tusResumable
  @uploadOffset
  @ApiHeader({
    name: 'Upload-Checksum',
    required: false,
    description: `"<${CHUNK_ALGORITHMS.join('|')}> <base64 digest>" of this chunk.`,
  })
  @ApiConsumes('application/offset+octet-stream')
  @ApiNoContentResponse({
    description: 'Appended; Upload-Offset is the new offset.',
  })
  @ApiResponse({
    status: 409,
    description: 'Upload-Offset is not where the upload stands.',
  })
  @ApiResponse({
    status: 460,
    description: 'checksum_mismatch: the chunk does not match Upload-Checksum; it was discarded.',
  })
  append(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.resumable.handle(access, principal, req, res);
  }

  @Delete(':uploadId')
  @ApiProblems(FILE_ERRORS.uploadLocked)
  @Access('record:editor')
  @ApiOperation({
    summary: 'Terminate the upload: its bytes are removed and its reservation released.',
  })
  @tusResumable
  @ApiNoContentResponse({ description: 'Terminated.' })
  terminate(
    @ResolvedAccess() access: VaultAccess,
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    return this.resumable.handle(access, principal, req, res);
  }
}

const TUS_MAX_SIZE_HEADER = {
  description: 'The largest upload, in bytes, this caller may create on the record now (only to a caller who may upload).',
  schema: { type: 'integer' as const },
};

/**
 * tus discovery (OPTIONS), open to anyone: the protocol version and extensions; a caller
 * sending its token who may upload to the record also gets its `Tus-Max-Size`.
 */
@ApiTags('record files')
@Controller(ROUTE)
export class TusDiscoveryController {
  constructor(private readonly discovery: TusDiscoveryService) {}

  @Options()
  @OptionallyAuthenticated()
  @HttpCode(204)
  @ApiOperation({
    summary: 'tus discovery: Tus-Version, Tus-Extension, Tus-Checksum-Algorithm; Tus-Max-Size for a caller who may upload.',
    description:
      'Open to anyone. With a bearer token (401 when it is not valid) of a caller who may upload to the record, ' +
      "Tus-Max-Size names the largest upload it may create now: the plan's vault.maxUploadMBs or the vault's room left.",
  })
  @ApiNoContentResponse({ description: 'No body.', headers: { 'Tus-Max-Size': TUS_MAX_SIZE_HEADER } })
  async collection(
    @CurrentPrincipal() principal: Principal | undefined,
    @Param('vaultId') vaultId: string,
    @Param('recordId') recordId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    discovery(res, await this.discovery.maxSizeFor(principal, vaultId, recordId));
  }

  @Options(':uploadId')
  @Public()
  @HttpCode(204)
  @ApiOperation({ summary: 'tus discovery on an upload: the protocol headers of the collection.' })
  @ApiNoContentResponse({ description: 'No body.' })
  upload(@Res({ passthrough: true }) res: Response): void {
    discovery(res);
  }
}

function discovery(res: Response, maxSize?: number): void {
  if (maxSize !== undefined) res.setHeader('Tus-Max-Size', String(maxSize));
  res.setHeader('Tus-Resumable', TUS_VERSION);
  res.setHeader('Tus-Version', TUS_VERSION);
  res.setHeader('Tus-Extension', TUS_EXTENSIONS);
  res.setHeader('Tus-Checksum-Algorithm', CHUNK_ALGORITHMS.join(','));
}
