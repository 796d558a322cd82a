import type { CallOptions, RecordsClient, Schemas, WriteOptions } from '../api-types.js';
import { ifMatch } from '../etag.js';
import { listItems } from '../pagination.js';
import type { Transport } from '../policy/transport.js';
import {
  downloadFile,
  exportAgeFile,
  type AgeExportResult,
  type DownloadOptions,
  type DownloadResult,
} from '../transfer/downloads.js';
import { uploadFile, type UploadContext, type UploadOptions, type UploadResult } from '../transfer/uploads.js';
import { dataOf, unwrap } from '../unwrap.js';

/** Files of a record: resumable uploads (tus), downloads with resume and digest check. */
export class FilesApi {
  constructor(
    private readonly api: RecordsClient,
    private readonly transport: Transport,
    private readonly upload_: UploadContext,
  ) {}

  /** The record's file groups (one per submission), newest first. */
  groups(vaultId: string, recordId: string, o: CallOptions = {}): AsyncGenerator<Schemas['RecordFileGroup']> {
    const params = { path: { vaultId, recordId } };
    return listItems(() =>
      dataOf(this.api.GET('/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files', { params, signal: o.signal })),
    );
  }

  /** The earlier versions of a file, newest first. */
  versions(vaultId: string, recordId: string, name: string, o: CallOptions = {}): AsyncGenerator<Schemas['FileVersionView']> {
    const params = { path: { vaultId, recordId, name } };
    const path = '/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files/{name}/versions';
    return listItems(() => dataOf(this.api.GET(path, { params, signal: o.signal })));
  }

  /** Uploads a file, resumable, with its SHA-256 checked by the platform. */
  upload(options: UploadOptions): Promise<UploadResult> {
    return uploadFile(this.upload_, options);
  }

  /** Downloads a file to `options.to`, resuming an interrupted download, checking its SHA-256. */
  download(vaultId: string, recordId: string, fileName: string, options: DownloadOptions): Promise<DownloadResult> {
    return downloadFile(this.transport, this.url(vaultId, recordId, fileName), options);
  }

  /**
   * Downloads a file as a standard `.age` file to `options.to` (the encrypted bytes as stored,
   * which `age -d -i identity.txt` decrypts; see `vaults.exportIdentity`). Owner only;
   * each request recorded in the vault's activity log. An interrupted export goes on from the
   * bytes already in `<to>.part` when the file offers ranges (its envelope stored for this
   * vault). No digest check (the digest the platform names is the plaintext's; age
   * authenticates every chunk).
   */
  downloadAge(vaultId: string, recordId: string, fileName: string, options: DownloadOptions): Promise<AgeExportResult> {
    return exportAgeFile(this.transport, `${this.url(vaultId, recordId, fileName)}/age`, options);
  }

  /** Deletes a file (only the metadata version `ifMatch` names, when given). */
  async delete(vaultId: string, recordId: string, name: string, o: WriteOptions = {}): Promise<void> {
    const params = { path: { vaultId, recordId, name } };
    await unwrap(
      this.api.DELETE('/vault/vault-id/{vaultId}/records/record-id/{recordId}/record-files/{name}', {
        params,
        headers: ifMatch(o.ifMatch),
        signal: o.signal,
      }),
    );
  }

  private url(vaultId: string, recordId: string, name: string): string {
    const e = encodeURIComponent;
    return `${this.upload_.recordsUrl}/vault/vault-id/${e(vaultId)}/records/record-id/${e(recordId)}/record-files/${e(name)}`;
  }
}
