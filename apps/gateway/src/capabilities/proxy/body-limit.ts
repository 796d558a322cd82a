import type { IncomingHttpHeaders } from 'node:http';
import type { ModuleHost } from '../routing/host-router';

/** A route whose body is a file upload: it gets the upload limit instead of the JSON one. */
export interface UploadRoute {
  module: ModuleHost;
  method: string;
  /** Path template: literal segments and `:name` for one path segment. */
  path: string;
}

/**
 * Every route that takes an upload. Any other route, whatever the content
 * type it is sent with, gets the JSON limit (docs/gateway.md).
 */
export const UPLOAD_ROUTES: readonly UploadRoute[] = [
  {
    module: 'records-api',
    method: 'POST',
    path: '/api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/record-files',
  },
  // resumable uploads (tus): creation-with-upload carries bytes, every chunk is a PATCH
  {
    module: 'records-api',
    method: 'POST',
    path: '/api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/uploads',
  },
  {
    module: 'records-api',
    method: 'PATCH',
    path: '/api/v1/vault/vault-id/:vaultId/records/record-id/:recordId/uploads/:uploadId',
  },
];

export interface LimitSettings {
  json: number;
  upload: number;
}

export type BodyKind = 'json' | 'upload';

export interface BodyLimit {
  kind: BodyKind;
  bytes: number;
}

/**
 * The path template as a pattern the way the modules route: one non-empty
 * segment per `:name`, case ignored, an optional trailing slash.
 */
function templatePattern(template: string): RegExp {
  const segments = template.split('/').map((s) => (s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}/?$`, 'i');
}

/** One body limit per route kind: the upload limit on upload routes, the JSON limit everywhere else. */
export class BodyLimits {
  private readonly uploads: Array<{ module: ModuleHost; method: string; pattern: RegExp }>;

  constructor(
    private readonly settings: LimitSettings,
    routes: readonly UploadRoute[] = UPLOAD_ROUTES,
  ) {
    this.uploads = routes.map((r) => ({ module: r.module, method: r.method.toUpperCase(), pattern: templatePattern(r.path) }));
  }

  /** The limit of a request by its module, method and target (the query is ignored). */
  limitFor(module: ModuleHost, method: string | undefined, url: string): BodyLimit {
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const upload = this.uploads.some((r) => r.module === module && r.method === method && r.pattern.test(path));
    return upload ? { kind: 'upload', bytes: this.settings.upload } : { kind: 'json', bytes: this.settings.json };
  }
}

/** True when Content-Length already announces more than the limit. */
export function declaresTooMuch(headers: IncomingHttpHeaders, limit: number): boolean {
  const length = headers['content-length'];
  return length !== undefined && Number(length) > limit;
}

export function describeLimit({ kind, bytes }: BodyLimit): string {
  return kind === 'upload'
    ? `The request body exceeds the gateway limit of ${bytes} bytes for uploads.`
    : `The request body exceeds the gateway limit of ${bytes} bytes for this route (it takes no upload).`;
}
