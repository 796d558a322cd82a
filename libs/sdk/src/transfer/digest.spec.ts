import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkChecksum, expectedSha256, sha256Hex } from './digest';

const bytes = randomBytes(10_000);
const b64 = (b: Buffer) => createHash('sha256').update(b).digest('base64');

describe('digests', () => {
  it('names the SHA-256 of a chunk, from bytes or from a file, for Upload-Checksum', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sdk-digest-'));
    const file = join(dir, 'f');
    writeFileSync(file, bytes);
    try {
      expect(await chunkChecksum(bytes, 4096, 4096)).toBe(`sha256 ${b64(bytes.subarray(4096, 8192))}`);
      expect(await chunkChecksum(file, 8192, 4096)).toBe(`sha256 ${b64(bytes.subarray(8192))}`);
      expect(await sha256Hex(file)).toBe(createHash('sha256').update(bytes).digest('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the whole file’s SHA-256 from Repr-Digest, else from a 64-hex ETag', () => {
    const hex = createHash('sha256').update(bytes).digest('hex');
    expect(expectedSha256(new Headers({ 'repr-digest': `sha-256=:${b64(bytes)}:` }))).toBe(hex);
    expect(expectedSha256(new Headers({ etag: `"${hex}"` }))).toBe(hex);
    expect(expectedSha256(new Headers({ etag: '"v.1"' }))).toBeUndefined();
  });
});
