import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FileType } from '@vault/contracts';
import { Caller, RecordsTestApp } from './support';

export const filesPath = (vaultId: string, recordId: string) =>
  `/vault/vault-id/${vaultId}/records/record-id/${recordId}/record-files`;

export interface UploadOptions {
  meta?: Record<string, string>;
  /** Metadata sent as multipart fields before the file part instead of the query. */
  asFields?: boolean;
  bytes?: Buffer;
  filename?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export function meta(fileName: string, overrides: Record<string, string> = {}): Record<string, string> {
  return { fileName, correlationId: '260101120000', fileType: 'document' satisfies FileType, uploadTitle: 'Scans', ...overrides };
}

type Pending = ReturnType<RecordsTestApp['get']>;

/** Collects a response body as bytes whatever its content type. */
export const binary = (req: Pending) =>
  req.buffer(true).parse((r, cb) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => cb(null, Buffer.concat(chunks)));
  });

/** An authenticated POST to the upload route, for hand-built multipart bodies. */
export const postFiles = (t: RecordsTestApp, c: Caller, vaultId: string, recordId: string) =>
  t
    .http()
    .post(`/api/v1${filesPath(vaultId, recordId)}`)
    .set('Authorization', `Bearer ${c.token}`);

/** POST …/record-files with the metadata in the query (default) or as fields. */
export function upload(t: RecordsTestApp, c: Caller, vaultId: string, recordId: string, o: UploadOptions = {}) {
  const m = o.meta ?? meta('passport.pdf');
  let req = postFiles(t, c, vaultId, recordId);
  for (const [k, v] of Object.entries(o.headers ?? {})) req = req.set(k, v);
  if (o.asFields) for (const [k, v] of Object.entries(m)) req = req.field(k, v);
  else req = req.query(m);
  return req.attach('file', o.bytes ?? randomBytes(1000), {
    filename: o.filename ?? 'scan.pdf',
    contentType: o.contentType ?? 'application/pdf',
  });
}

/** Every file below a folder, recursively (storage folders must hold only committed keys). */
export function filesBelow(dir: string): string[] {
  let out: string[] = [];
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    out = e.isDirectory() ? [...out, ...filesBelow(p)] : [...out, p];
  }
  return out;
}

/** Polls until `check` holds (the purge queue runs on an interval). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
