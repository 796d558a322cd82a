import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { envelopeLength, newEnvelope, openEnvelope, rewrapEnvelope } from './age-header';
import { CHUNK, OpenOptions, OpenStream, SEALED_CHUNK, SealStream, sealedRange, sealedSize } from './age-stream';
import { SealedObjectError } from './encryption.errors';
import { formatIdentity, formatRecipient, newSecretKey, parseIdentity, parseRecipient, publicKeyOf } from './x25519';

const run = promisify(execFile);
const REPO = join(__dirname, '../../../../..');

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

/** Feeds `data` in pieces of `piece` bytes (uneven on purpose) through `transform`. */
async function through(transform: NodeJS.ReadWriteStream, data: Buffer, piece = 7919): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += piece) pieces.push(data.subarray(i, i + piece));
  const [out] = await Promise.all([collect(transform), pipeline(Readable.from(pieces), transform)]);
  return out;
}

async function seal(recipient: Buffer, plain: Buffer) {
  const { envelope, key } = newEnvelope(recipient);
  return { envelope, object: await through(new SealStream(key), plain) };
}

const open = async (identity: Buffer, envelope: Buffer, object: Buffer, options?: OpenOptions) =>
  through(new OpenStream(openEnvelope(envelope, identity), options), object, 65_537);

/** Runs the age-encryption package (ES modules only) in its own Node process: a second implementation. */
async function oracle(op: 'encrypt' | 'decrypt', key: string, input: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'age-oracle-'));
  try {
    await writeFile(join(dir, 'in'), input);
    const script = `
      import { Encrypter, Decrypter } from 'age-encryption';
      import { readFileSync, writeFileSync } from 'node:fs';
      const [op, key, dir] = process.argv.slice(1);
      const input = readFileSync(dir + '/in');
      let out;
      if (op === 'encrypt') { const e = new Encrypter(); e.addRecipient(key); out = await e.encrypt(input); }
      else { const d = new Decrypter(); d.addIdentity(key); out = await d.decrypt(input); }
      writeFileSync(dir + '/out', out);`;
    await run(process.execPath, ['--input-type=module', '-e', script, op, key, dir], { cwd: REPO });
    return await readFile(join(dir, 'out'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Debian's age CLI on a whole `.age` file (or, to encrypt, on plaintext). */
async function ageCli(args: string[], input: Buffer, identity?: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'age-cli-'));
  try {
    await writeFile(join(dir, 'in'), input);
    if (identity) await writeFile(join(dir, 'key.txt'), `${identity}\n`, { mode: 0o600 });
    const withKey = identity ? ['-i', join(dir, 'key.txt')] : [];
    const { stdout } = await run('age', [...args, ...withKey, join(dir, 'in')], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const identity = newSecretKey();
const recipient = publicKeyOf(identity);
const SIZES = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 4242];

describe('age v1 file bodies', () => {
  it('round-trips every chunk-boundary size, with the stored size it predicts', async () => {
    for (const size of SIZES) {
      const plain = randomBytes(size);
      const { envelope, object } = await seal(recipient, plain);
      expect(object.length).toBe(sealedSize(size));
      expect((await open(identity, envelope, object)).equals(plain)).toBe(true);
    }
  });

  it('writes what the age CLI decrypts with the exported identity, byte for byte', async () => {
    for (const size of [0, CHUNK, 2 * CHUNK + 17]) {
      const plain = randomBytes(size);
      const { envelope, object } = await seal(recipient, plain);
      const out = await ageCli(['-d'], Buffer.concat([envelope, object]), formatIdentity(identity));
      expect(out.equals(plain)).toBe(true);
    }
  });

  it('reads what the age CLI encrypts to the vault recipient', async () => {
    const plain = randomBytes(2 * CHUNK + 5);
    const file = await ageCli(['-e', '-r', formatRecipient(recipient)], plain);
    const cut = envelopeLength(file);
    expect((await open(identity, file.subarray(0, cut), file.subarray(cut))).equals(plain)).toBe(true);
  });

  it('agrees with the age-encryption package both ways', async () => {
    const plain = randomBytes(CHUNK + 99);
    const { envelope, object } = await seal(recipient, plain);
    expect((await oracle('decrypt', formatIdentity(identity), Buffer.concat([envelope, object]))).equals(plain)).toBe(true);
    const file = await oracle('encrypt', formatRecipient(recipient), plain);
    const cut = envelopeLength(file);
    expect((await open(identity, file.subarray(0, cut), file.subarray(cut))).equals(plain)).toBe(true);
  });

  it('encodes identities and recipients as age does, and refuses a bad checksum', () => {
    expect(parseIdentity(formatIdentity(identity)).equals(identity)).toBe(true);
    expect(parseRecipient(formatRecipient(recipient)).equals(recipient)).toBe(true);
    const text = formatRecipient(recipient);
    const broken = text.slice(0, -1) + (text.endsWith('q') ? 'p' : 'q');
    expect(() => parseRecipient(broken)).toThrow(/checksum/);
  });

  it('rewraps an envelope for another key without touching the stored bytes', async () => {
    const plain = randomBytes(CHUNK + 3);
    const { envelope, object } = await seal(recipient, plain);
    const other = newSecretKey();
    const moved = rewrapEnvelope(envelope, identity, publicKeyOf(other));
    expect((await open(other, moved, object)).equals(plain)).toBe(true);
    expect(() => openEnvelope(moved, identity)).toThrow(SealedObjectError);
  });
});

describe('damaged objects are refused, never read as wrong bytes', () => {
  const plain = randomBytes(3 * CHUNK + 100);
  let sealed: { envelope: Buffer; object: Buffer };
  beforeAll(async () => {
    sealed = await seal(recipient, plain);
  });

  const kindOf = (p: Promise<unknown>) =>
    p.then(
      () => 'read',
      (e: unknown) => (e instanceof SealedObjectError ? e.kind : String(e)),
    );

  it('a flipped bit in any chunk', async () => {
    for (const at of [5, SEALED_CHUNK + 1, 3 * SEALED_CHUNK + 50]) {
      const object = Buffer.from(sealed.object);
      object[at] ^= 1;
      expect(await kindOf(open(identity, sealed.envelope, object))).toBe('chunk');
    }
  });

  it('a changed header, or a key that is not the vault key', async () => {
    const envelope = Buffer.from(sealed.envelope);
    envelope[envelope.indexOf('\n---') - 3] ^= 1;
    expect(await kindOf(open(identity, envelope, sealed.object))).toBe('header');
    expect(await kindOf(open(newSecretKey(), sealed.envelope, sealed.object))).toBe('header');
  });

  it('an object cut at a chunk boundary, mid-chunk, or empty', async () => {
    expect(await kindOf(open(identity, sealed.envelope, sealed.object.subarray(0, 2 * SEALED_CHUNK)))).toBe('truncated');
    expect(await kindOf(open(identity, sealed.envelope, sealed.object.subarray(0, 2 * SEALED_CHUNK + 9)))).toBe('chunk');
    expect(await kindOf(open(identity, sealed.envelope, Buffer.alloc(0)))).toBe('truncated');
  });

  it('bytes appended after the last chunk, and chunks swapped', async () => {
    expect(await kindOf(open(identity, sealed.envelope, Buffer.concat([sealed.object, randomBytes(20)])))).not.toBe('read');
    const o = sealed.object;
    const swapped = Buffer.concat([
      o.subarray(SEALED_CHUNK, 2 * SEALED_CHUNK),
      o.subarray(0, SEALED_CHUNK),
      o.subarray(2 * SEALED_CHUNK),
    ]);
    expect(await kindOf(open(identity, sealed.envelope, swapped))).toBe('chunk');
  });
});

describe('range reads', () => {
  const size = 4 * CHUNK + 1234;
  const plain = randomBytes(size);
  let sealed: { envelope: Buffer; object: Buffer };
  beforeAll(async () => {
    sealed = await seal(recipient, plain);
  });

  const readRange = (start: number, end: number, object = sealed.object) => {
    const r = sealedRange(size, start, end);
    return open(identity, sealed.envelope, object.subarray(r.objectStart, r.objectEnd + 1), r.options);
  };

  it('decrypt only the chunks the range touches and return exactly its bytes', async () => {
    const cases: [number, number][] = [
      [0, 0],
      [10, CHUNK - 1],
      [CHUNK - 5, CHUNK + 5],
      [2 * CHUNK, 3 * CHUNK - 1],
      [4 * CHUNK + 1000, size - 1],
      [0, size - 1],
    ];
    for (const [start, end] of cases) {
      const r = sealedRange(size, start, end);
      const touched = Math.floor(end / CHUNK) - Math.floor(start / CHUNK) + 1;
      expect(r.objectEnd - r.objectStart + 1).toBeLessThanOrEqual(touched * SEALED_CHUNK);
      expect((await readRange(start, end)).equals(plain.subarray(start, end + 1))).toBe(true);
    }
  });

  it('refuse a tampered chunk inside the range and a short read of the object', async () => {
    const object = Buffer.from(sealed.object);
    object[2 * SEALED_CHUNK + 7] ^= 1;
    await expect(readRange(2 * CHUNK, 2 * CHUNK + 10, object)).rejects.toBeInstanceOf(SealedObjectError);
    const r = sealedRange(size, CHUNK, 3 * CHUNK);
    const short = sealed.object.subarray(r.objectStart, r.objectEnd - 100);
    await expect(open(identity, sealed.envelope, short, r.options)).rejects.toBeInstanceOf(SealedObjectError);
  });
});
