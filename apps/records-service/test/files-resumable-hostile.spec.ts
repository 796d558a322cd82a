import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import type { Test } from 'supertest';
import { meta } from './files-support';
import { uploadsPath } from './resumable-support';
import { Caller, RecordsTestApp } from './support';

/**
 * Hostile tus input (issue 29): every refusal is the tus answer with a problem body, none a
 * 500, and what the log says is readable; nothing is written for a refused PATCH.
 */
describe('resumable uploads, hostile tus input', () => {
  let t: RecordsTestApp;
  let dir: string;
  let owner: Caller;
  let vaultId: string;
  let recordId: string;
  let logged: string[];

  const base = () => uploadsPath(vaultId, recordId);
  const as = (req: Test) => req.set('Authorization', `Bearer ${owner.token}`).set('Tus-Resumable', '1.0.0');
  const metadataOf = (m: Record<string, string>) =>
    Object.entries(m)
      .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
      .join(',');
  const create = () =>
    as(t.http().post(base()))
      .set('Upload-Length', '10')
      .set('Upload-Metadata', metadataOf(meta('a.bin')));
  /** A PATCH of 4 bytes with the chunk headers, `headers` on top (undefined: the header left out). */
  const patch = (path: string, headers: Record<string, string | undefined> = {}) => {
    let req = as(t.http().patch(path));
    const all = { 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', ...headers };
    for (const [name, value] of Object.entries(all)) if (value !== undefined) req = req.set(name, value);
    return req.send(Buffer.alloc(4));
  };
  const offsetOf = async (id: string) =>
    Number(
      (await t.sql<{ upload_offset: string }>('SELECT upload_offset FROM resumable_uploads WHERE id = $1', [id]))[0]
        ?.upload_offset,
    );
  const uploadRows = () => t.sql('SELECT id, metadata FROM resumable_uploads WHERE record_id = $1', [recordId]);
  const expectProblem = (res: { status: number; headers: Record<string, string>; body: unknown }, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, requestId: expect.any(String) });
    expect(res.headers['tus-resumable']).toBe('1.0.0');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resumable-hostile-'));
    t = await RecordsTestApp.start('records_tus_hostile', { FILE_STORAGE: 'fs', FILE_STORAGE_DIR: dir });
  });
  beforeEach(async () => {
    owner = await t.caller('tenant-a', 'olga');
    vaultId = await t.createVault(owner);
    recordId = await t.createRecord(owner, vaultId);
    logged = [];
    for (const level of ['error', 'warn', 'log'] as const) {
      jest.spyOn(Logger.prototype, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map((a) => String(a)).join(' '));
      });
    }
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['Upload-Defer-Length (creation-defer-length is not offered)', 'Upload-Defer-Length', '1'],
    ['Upload-Concat partial (concatenation is not offered)', 'Upload-Concat', 'partial'],
    ['Upload-Concat final', 'Upload-Concat', 'final;/a /b'],
  ])('a creation with %s is 400 naming the header, nothing created', async (_what, header, value) => {
    const res = await create().unset('Upload-Length').set(header, value);
    expectProblem(res, 400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: header })],
    });
    expect(res.headers['tus-extension']).toBe('creation,creation-with-upload,checksum,termination,expiration');
    expect(await uploadRows()).toEqual([]);
    expect(logged.join('\n')).not.toMatch(/\[object Object\]/);
    expect(logged.join('\n')).toMatch(new RegExp(`tus POST refused 400.*${header}`));
  });

  it('a creation under an Idempotency-Key with Upload-Concat is the same 400, and so is its repeat', async () => {
    const send = () => create().set('Idempotency-Key', 'concat-1').set('Upload-Concat', 'partial');
    const first = await send();
    expectProblem(first, 400);
    const again = await send();
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ field: 'Upload-Concat' })],
    });
    expect(await uploadRows()).toEqual([]);
  });

  it('a PATCH with Upload-Defer-Length is 400 and writes nothing', async () => {
    const path = (await create().expect(201)).headers['location'];
    const res = await patch(path, { 'Upload-Defer-Length': '1' });
    expectProblem(res, 400);
    expect(await offsetOf(path.split('/').pop() as string)).toBe(0);
  });

  it('a PATCH with Upload-Length (a deferred length, not offered) is 400 and writes nothing', async () => {
    const path = (await create().expect(201)).headers['location'];
    const res = await patch(path, { 'Upload-Length': '4' });
    expectProblem(res, 400);
    expect(res.body).toMatchObject({ errors: [expect.objectContaining({ field: 'Upload-Length' })] });
    expect(await offsetOf(path.split('/').pop() as string)).toBe(0);
  });

  it.each(['HEAD', 'PATCH', 'DELETE'])('%s on …/uploads/%%00 (an id that cannot exist) is 404', async (method) => {
    let req = as(t.http()[method.toLowerCase() as 'head' | 'patch' | 'delete'](`${base()}/%00`));
    if (method === 'PATCH')
      req = req.set('Upload-Offset', '0').set('Content-Type', 'application/offset+octet-stream').send(Buffer.alloc(4));
    const res = await req;
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    if (method !== 'HEAD') expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(logged.join('\n')).not.toMatch(/\[object Object\]/);
    expect(logged.join('\n')).toMatch(new RegExp(`tus ${method} refused 404`));
  });

  it.each([
    ['a%2Fb', 404],
    ['not-a-uuid', 404],
    ['%E0%A4%A', 400], // a path the router cannot decode
  ])('HEAD on the id %s is %d', async (id, status) => {
    const res = await as(t.http().head(`${base()}/${id}`));
    expect(res.status).toBe(status);
  });

  describe('PATCH headers', () => {
    let path: string;
    let id: string;
    beforeEach(async () => {
      path = (await create().expect(201)).headers['location'];
      id = path.split('/').pop() as string;
    });

    it('without Content-Type is 415 and writes nothing', async () => {
      const res = await patch(path, { 'Content-Type': undefined });
      expectProblem(res, 415);
      expect(res.body).toMatchObject({ code: 'unsupported_media_type' });
      expect(await offsetOf(id)).toBe(0);
    });

    it('with another Content-Type is 415 and writes nothing', async () => {
      const res = await patch(path, { 'Content-Type': 'application/octet-stream' });
      expectProblem(res, 415);
      expect(await offsetOf(id)).toBe(0);
    });

    it('without Upload-Offset is 400 naming it', async () => {
      const res = await patch(path, { 'Upload-Offset': undefined });
      expectProblem(res, 400);
      expect(res.body).toMatchObject({ errors: [expect.objectContaining({ field: 'Upload-Offset' })] });
      expect(await offsetOf(id)).toBe(0);
    });

    it.each(['-1', '1.5', 'x', '00'])('with Upload-Offset %s is 400', async (offset) => {
      const res = await patch(path, { 'Upload-Offset': offset });
      expectProblem(res, 400);
      expect(await offsetOf(id)).toBe(0);
    });

    it('with Tus-Resumable 0.2.2 is 412 with Tus-Version, not processed', async () => {
      const res = await patch(path, { 'Tus-Resumable': '0.2.2' });
      expectProblem(res, 412);
      expect(res.headers['tus-version']).toBe('1.0.0');
      expect(res.body).toMatchObject({ code: 'precondition_failed' });
      expect(await offsetOf(id)).toBe(0);
    });
  });

  it('a creation with Tus-Resumable 2.0.0 is 412 with Tus-Version', async () => {
    const res = await create().set('Tus-Resumable', '2.0.0');
    expectProblem(res, 412);
    expect(res.headers['tus-version']).toBe('1.0.0');
    expect(await uploadRows()).toEqual([]);
  });

  describe('Upload-Metadata that is not UTF-8', () => {
    const rawMetadata = (values: Record<string, Buffer>) =>
      Object.entries(values)
        .map(([k, v]) => `${k} ${v.toString('base64')}`)
        .join(',');
    it.each([
      ['a lone continuation byte', Buffer.from([0x61, 0x80, 0x62]), 1],
      ['a truncated sequence', Buffer.from([0x61, 0x62, 0xe2, 0x82]), 2],
      ['an overlong encoding', Buffer.from([0xc0, 0xaf]), 0],
      ['an encoded surrogate', Buffer.from([0x61, 0xed, 0xa0, 0x80]), 2],
    ])('is 400 naming the key for %s, nothing stored', async (_what, bytes, at) => {
      const fields = { ...meta('a.bin'), uploadTitle: 'x' };
      const values = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Buffer.from(v)]));
      const res = await as(t.http().post(base()))
        .set('Upload-Length', '10')
        .set('Upload-Metadata', rawMetadata({ ...values, uploadTitle: bytes }));
      expectProblem(res, 400);
      expect(res.body).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'uploadTitle', message: `uploadTitle is not valid UTF-8 (byte ${at} of its value)` }],
      });
      expect(await uploadRows()).toEqual([]);
    });

    it('takes text in any script as it is', async () => {
      const res = await as(t.http().post(base()))
        .set('Upload-Length', '10')
        .set('Upload-Metadata', metadataOf(meta('résumé-日本.pdf', { uploadTitle: 'Ünïcode 🚀' })))
        .expect(201);
      expect(res.headers['location']).toBeDefined();
      const [row] = await uploadRows();
      expect(row.metadata).toMatchObject({ fileName: 'résumé-日本.pdf', uploadTitle: 'Ünïcode 🚀' });
    });
  });
});
