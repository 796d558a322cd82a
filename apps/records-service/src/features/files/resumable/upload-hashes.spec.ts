import { createHash } from 'node:crypto';
import { UploadHashes } from './upload-hashes';

const sha256 = (...parts: string[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};
const later = new Date(Date.now() + 60_000);

describe('UploadHashes', () => {
  it('continues a kept hash only at the offset it covers, and starts one at offset 0', () => {
    const hashes = new UploadHashes(10);
    const first = hashes.continueAt('u', 0);
    expect(first).toBeDefined();
    first?.update('abc');
    if (first) hashes.keep('u', first, 3, later);

    const next = hashes.continueAt('u', 3);
    next?.update('def');
    expect(next?.copy().digest('hex')).toBe(sha256('abc', 'def'));
    // not recorded (a refused chunk): the kept hash still covers 0..3
    expect(hashes.take('u', 3)?.digest('hex')).toBe(sha256('abc'));
    expect(hashes.size).toBe(0);
  });

  it('forgets a hash of other bytes: the upload moved on elsewhere', () => {
    const hashes = new UploadHashes(10);
    hashes.keep('u', createHash('sha256').update('abc'), 3, later);
    expect(hashes.continueAt('u', 8)).toBeUndefined();
    expect(hashes.size).toBe(0);
    expect(hashes.continueAt('other', 5)).toBeUndefined();
    hashes.keep('u', createHash('sha256').update('abc'), 3, later);
    expect(hashes.take('u', 10)).toBeUndefined();
    expect(hashes.size).toBe(0);
  });

  it('keeps at most `max` uploads, dropping the least recently written', () => {
    const hashes = new UploadHashes(2);
    hashes.keep('a', createHash('sha256'), 1, later);
    hashes.keep('b', createHash('sha256'), 1, later);
    hashes.keep('a', createHash('sha256'), 2, later);
    hashes.keep('c', createHash('sha256'), 1, later);
    expect(hashes.size).toBe(2);
    expect(hashes.take('b', 1)).toBeUndefined();
    expect(hashes.take('a', 2)).toBeDefined();
    expect(hashes.take('c', 1)).toBeDefined();
  });

  it('drops terminated and expired uploads', () => {
    const hashes = new UploadHashes(10);
    hashes.keep('gone', createHash('sha256'), 1, later);
    hashes.keep('old', createHash('sha256'), 1, new Date(1000));
    hashes.keep('open', createHash('sha256'), 1, later);
    hashes.drop('gone');
    hashes.dropExpired(2000);
    expect(hashes.size).toBe(1);
    expect(hashes.take('open', 1)).toBeDefined();
  });
});
