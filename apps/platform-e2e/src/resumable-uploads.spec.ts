import { createHash, randomBytes } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import * as tus from 'tus-js-client';
import { call, cy, hostOf, tokenFor } from '../support/client';

/** Every module host of the test domain is the gateway on loopback. */
const loopback: LookupFunction = (_host, options, cb) => {
  if (options.all)
    (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};
const httpStack = new tus.DefaultHttpStack({
  rejectUnauthorized: false,
  lookup: loopback,
} as object);

const KiB = 1024;

/** Resumable uploads (tus) with tus-js-client through the gateway (docs/files.md, Resumable uploads). */
describe('resumable uploads through the gateway', () => {
  let owner: string;
  let stranger: string;
  let base: string;
  let endpoint: string;

  beforeAll(async () => {
    // an account of its own: vault quotas are per account and other suites share ann's
    [owner, stranger] = await Promise.all([
      tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'tia@alpha.example', 'tia-password-1'),
      cy(),
    ]);
    const vault = await call('records', 'POST', '/vault', {
      token: owner,
      body: { name: 'Resumable e2e' },
    });
    expect(vault.status).toBe(201);
    const record = await call('records', 'POST', `/vault/vault-id/${vault.body.id}/records`, {
      token: owner,
      body: {
        name: 'Scans',
        description: '',
        recordTypeName: 'identityDocs',
        recordSubtypeName: 'passport',
      },
    });
    expect(record.status).toBe(200);
    base = `/vault/vault-id/${vault.body.id}/records/record-id/${record.body.id}`;
    endpoint = `https://${hostOf('records')}:${process.env['E2E_GATEWAY_PORT']}/api/v1${base}/uploads`;
  });

  const run = (token: string, bytes: Buffer, o: Partial<tus.UploadOptions>) =>
    new Promise<tus.HttpResponse>((resolve, reject) => {
      const up = new tus.Upload(bytes, {
        httpStack,
        retryDelays: [],
        storeFingerprintForResuming: false,
        headers: { Authorization: `Bearer ${token}` },
        onSuccess: (p) => resolve(p.lastResponse),
        onError: reject,
        ...o,
      });
      up.start();
    });

  it('uploads in chunks with Upload-Checksum, the last PATCH naming the new record file', async () => {
    const bytes = randomBytes(600 * KiB + 17);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const last = await run(owner, bytes, {
      endpoint,
      chunkSize: 200 * KiB,
      metadata: {
        fileName: 'scan.bin',
        correlationId: '260101120000',
        fileType: 'document',
        sha256,
      },
      onBeforeRequest: (req) => {
        if (req.getMethod() !== 'PATCH') return;
        const offset = Number(req.getHeader('Upload-Offset'));
        const chunk = bytes.subarray(offset, offset + 200 * KiB);
        req.setHeader('Upload-Checksum', `sha1 ${createHash('sha1').update(chunk).digest('base64')}`);
      },
    });
    expect(last.getStatus()).toBe(204);
    expect(last.getHeader('Tus-Resumable')).toBe('1.0.0');
    expect(last.getHeader('Record-File-Url')).toBe(`${base}/record-files/scan.bin`);
    const got = await call('records', 'GET', `${base}/record-files/scan.bin`, {
      token: owner,
    });
    expect(got.status).toBe(200);
    expect(got.headers['etag']).toBe(`"${sha256}"`);
  });

  it('relays 460 for a chunk with a wrong checksum, and 404 to another caller', async () => {
    const bytes = randomBytes(10 * KiB);
    const err = await run(owner, bytes, {
      endpoint,
      metadata: {
        fileName: 'bad.bin',
        correlationId: '260101120000',
        fileType: 'document',
      },
      onBeforeRequest: (req) => {
        if (req.getMethod() === 'PATCH')
          req.setHeader('Upload-Checksum', `sha1 ${createHash('sha1').update('other').digest('base64')}`);
      },
    }).then(
      () => undefined,
      (e: tus.DetailedError) => e,
    );
    expect(err?.originalResponse?.getStatus()).toBe(460);
    const url = new URL(err?.originalRequest?.getURL() ?? '');
    const head = await call('records', 'HEAD', url.pathname.replace('/api/v1', ''), {
      token: owner,
      headers: { 'tus-resumable': '1.0.0' },
    });
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe('0');
    const foreign = await call('records', 'HEAD', url.pathname.replace('/api/v1', ''), {
      token: stranger,
      headers: { 'tus-resumable': '1.0.0' },
    });
    expect(foreign.status).toBe(404);
  });
});
