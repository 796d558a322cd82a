import type { UploadFileMetadataDto } from '@vault/contracts';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import type { UploadLimits } from '../../../capabilities/plans/quota.service';
import type { StoredBytes } from '../../../capabilities/storage/file-bytes.service';

/** A file whose bytes are stored, waiting for its metadata row. */
export interface ReceivedFile {
  metadata: UploadFileMetadataDto;
  stored: StoredBytes;
  mediaType: string;
}

/** Everything one upload request has established so far, in the order it is learnt. */
export interface UploadState {
  /** The vault and record RoleGuard resolved, with the caller's roles. */
  access: VaultAccess;
  /** The client's SHA-256 of the file (header), lower-case hex. */
  expectedSha256?: string;
  /** The plan's limits, read before any byte is accepted. */
  limits: UploadLimits;
  /** The multipart fields as they were when the file part began (JSON of each value). */
  fieldsBeforeFile?: Record<string, string>;
  /** The stored file, once its part has been read whole. */
  received?: ReceivedFile;
}
