import { createHash, randomBytes } from 'node:crypto';
import { close, createWriteStream, fdatasync, fsync, mkdtempSync, open, readFileSync, rmSync, write, writev } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BaseFs, earlyFlushFs } from './early-flush-fs';

const KiB = 1024;

describe('earlyFlushFs', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'early-flush-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The node calls, counting flushes and final syncs; `failFlush` makes every fdatasync fail. */
  function counted(failFlush = false) {
    const calls = { fdatasync: 0, fsync: 0 };
    const base: BaseFs = {
      open,
      close,
      write,
      writev,
      fsync: (fd, cb) => {
        calls.fsync++;
        fsync(fd, cb);
      },
      fdatasync: (fd, cb) => {
        calls.fdatasync++;
        if (failFlush) setImmediate(() => cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
        else fdatasync(fd, cb);
      },
    };
    return { calls, base };
  }

  const chunks = (count: number, size: number) => Array.from({ length: count }, () => randomBytes(size));

  it('writes every byte, flushes in the background along the way and still syncs at the end', async () => {
    const { calls, base } = counted();
    const data = chunks(64, 16 * KiB); // 1 MiB
    const file = join(dir, 'a.bin');
    await pipeline(
      Readable.from(data),
      createWriteStream(file, { flags: 'wx', flush: true, highWaterMark: 16 * KiB, fs: earlyFlushFs(128 * KiB, base) }),
    );
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha(readFileSync(file))).toBe(sha(Buffer.concat(data)));
    expect(calls.fdatasync).toBeGreaterThanOrEqual(1);
    expect(calls.fdatasync).toBeLessThanOrEqual(8);
    expect(calls.fsync).toBe(1);
  });

  it('does not flush early below the threshold', async () => {
    const { calls, base } = counted();
    await pipeline(
      Readable.from(chunks(4, 16 * KiB)),
      createWriteStream(join(dir, 'b.bin'), { flags: 'wx', flush: true, fs: earlyFlushFs(1024 * KiB, base) }),
    );
    expect(calls).toEqual({ fdatasync: 0, fsync: 1 });
  });

  it('fails the stream when a background flush fails, even if the final fsync would succeed', async () => {
    const { base } = counted(true);
    // Slow enough that the failed flush is known before the data ends.
    async function* slow() {
      for (const c of chunks(32, 16 * KiB)) {
        await new Promise((r) => setTimeout(r, 1));
        yield c;
      }
    }
    await expect(
      pipeline(
        Readable.from(slow()),
        createWriteStream(join(dir, 'c.bin'), {
          flags: 'wx',
          flush: true,
          highWaterMark: 16 * KiB,
          fs: earlyFlushFs(64 * KiB, base),
        }),
      ),
    ).rejects.toThrow('EIO');
  });

  it('fails the closing sync when the last background flush fails after the last write', async () => {
    const { base } = counted(true);
    const fs = earlyFlushFs(16 * KiB, base);
    // One write that crosses the threshold, then the end at once: the flush is still running.
    await expect(
      pipeline(Readable.from([randomBytes(16 * KiB)]), createWriteStream(join(dir, 'd.bin'), { flags: 'wx', flush: true, fs })),
    ).rejects.toThrow('EIO');
  });
});
