import { call } from './client';

const BOUNDARY = 'e2e-upload-boundary';

/** The multipart body of one `file` part holding `bytes`. */
function multipart(fileName: string, bytes: Buffer, contentType: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
        `Content-Type: ${contentType}\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/**
 * A multipart upload of `bytes` as the document `fileName` to a record's files path
 * (`…/records/record-id/{id}/record-files`); `replace` makes a new version of a file of that name.
 */
export function uploadFile(
  token: string,
  filesPath: string,
  fileName: string,
  bytes: Buffer,
  options: { replace?: boolean; contentType?: string } = {},
) {
  const query = new URLSearchParams({ fileName, correlationId: '260101120000', fileType: 'document' });
  if (options.replace) query.set('replace', 'true');
  return call('records', 'POST', `${filesPath}?${query}`, {
    token,
    raw: multipart(fileName, bytes, options.contentType ?? 'application/pdf'),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  });
}

/** A new vault `vaultName` of the caller with one passport record: the path of that record's files. */
export async function newRecordFiles(token: string, vaultName: string): Promise<string> {
  const vault = await call('records', 'POST', '/vault', { token, body: { name: vaultName } });
  expect(vault.status).toBe(201);
  const record = await call('records', 'POST', `/vault/vault-id/${vault.body.id}/records`, {
    token,
    body: { name: 'Lease', description: '', recordTypeName: 'identityDocs', recordSubtypeName: 'passport' },
  });
  expect(record.status).toBe(200);
  return `/vault/vault-id/${vault.body.id}/records/record-id/${record.body.id}/record-files`;
}
