import { createHash } from 'node:crypto';
import { ann, call, cy } from '../support/client';
import { newRecordFiles } from '../support/uploads';

const BOUNDARY = 'e2e-record-files-boundary';

/** A multipart body with the bytes in the part `file`. */
function multipart(content: string, filename = 'note.txt', type = 'text/plain'): Buffer {
  return Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
      `Content-Type: ${type}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
  );
}

/** Record files end to end through the gateway (docs/files.md). */
describe('record files through the gateway', () => {
  let owner: string;
  let foreign: string;
  let files: string;
  const content = 'The quick brown fox jumps over the lazy dog.\n'.repeat(100);
  const sha256 = createHash('sha256').update(content).digest('hex');

  beforeAll(async () => {
    [owner, foreign] = await Promise.all([ann(), cy()]);
    files = await newRecordFiles(owner, 'Files e2e');
  });

  it('uploads, lists, downloads (whole, range, 304), updates and deletes a file', async () => {
    const query = new URLSearchParams({ fileName: 'lease notes.txt', correlationId: '260101120000', fileType: 'document' });
    const up = await call('records', 'POST', `${files}?${query}`, {
      token: owner,
      raw: multipart(content),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'x-checksum-sha256': sha256 },
    });
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ fileName: 'lease notes.txt', fileSize: content.length, cloaudStorage: false, __v: 0 });

    const list = await call('records', 'GET', files, { token: owner });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      expect.objectContaining({
        correlationId: '260101120000',
        files: [expect.objectContaining({ fileName: 'lease notes.txt' })],
      }),
    ]);

    const path = `${files}/${encodeURIComponent('lease notes.txt')}`;
    const whole = await call('records', 'GET', path, { token: owner });
    expect(whole.status).toBe(200);
    expect(whole.text).toBe(content);
    expect(whole.headers['content-type']).toBe('text/plain');
    expect(whole.headers['etag']).toBe(`"${sha256}"`);
    expect(whole.headers['content-disposition']).toContain(`filename*=UTF-8''lease%20notes.txt`);
    const range = await call('records', 'GET', path, { token: owner, headers: { range: 'bytes=4-8' } });
    expect(range.status).toBe(206);
    expect(range.text).toBe('quick');
    const cached = await call('records', 'GET', path, { token: owner, headers: { 'if-none-match': `"${sha256}"` } });
    expect(cached.status).toBe(304);

    const put = await call('records', 'PUT', path, {
      token: owner,
      body: { correlationId: '260101120000', uploadTitle: 'Notes' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ uploadTitle: 'Notes', __v: 1, recordDetail: expect.any(String) });

    expect((await call('records', 'GET', path, { token: foreign })).status).toBe(404);

    const del = await call('records', 'DELETE', path, { token: owner });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ fileName: 'lease notes.txt' });
    expect((await call('records', 'GET', path, { token: owner })).status).toBe(404);
  });

  it('refuses an image without caption with a problem body', async () => {
    const query = new URLSearchParams({ fileName: 'p.jpg', correlationId: '1', fileType: 'image' });
    const res = await call('records', 'POST', `${files}?${query}`, {
      token: owner,
      raw: multipart('x', 'p.jpg', 'image/jpeg'),
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toContainEqual({ field: 'caption', message: 'caption is required for images' });
  });
});
