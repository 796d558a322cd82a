import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@vault/platform/config';
import { WebhooksEnv } from '../webhooks.env';
import { devKeyring } from './dev-keyring';
import { newKeyring, parseKeyring, SecretBox, SecretUnreadableError } from './secret-box';

const key = () => randomBytes(32).toString('base64');
const WEBHOOK = '6f1c0000-0000-4000-8000-000000000001';
const OTHER = '6f1c0000-0000-4000-8000-000000000002';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

describe('SecretBox', () => {
  const [k1, k2] = [key(), key()];
  const box = new SecretBox(parseKeyring(`k1:${k1}`));

  it('seals as v1:<keyId>:<base64url nonce|ciphertext|tag> and opens it again', () => {
    const sealed = box.seal(SECRET, WEBHOOK);
    expect(sealed).toMatch(/^v1:k1:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET.slice(6, 20));
    // 12 bytes of nonce, the secret's bytes, 16 bytes of tag.
    expect(Buffer.from(sealed.split(':')[2], 'base64url')).toHaveLength(12 + Buffer.byteLength(SECRET) + 16);
    expect(box.open(sealed, WEBHOOK)).toBe(SECRET);
  });

  it('uses a fresh nonce for every value', () => {
    const a = box.seal(SECRET, WEBHOOK);
    const b = box.seal(SECRET, WEBHOOK);
    expect(a).not.toBe(b);
    expect(a.split(':')[2].slice(0, 16)).not.toBe(b.split(':')[2].slice(0, 16));
  });

  it('reads a value without the v1: prefix as the plain-text secret it is', () => {
    expect(box.open(SECRET, WEBHOOK)).toBe(SECRET);
    expect(box.isCurrent(SECRET)).toBe(false);
  });

  it('refuses a value bound to another webhook', () => {
    const sealed = box.seal(SECRET, WEBHOOK);
    expect(() => box.open(sealed, OTHER)).toThrow(SecretUnreadableError);
    expect(() => box.open(sealed, OTHER)).toThrow(/does not decrypt with key "k1".*another webhook/);
  });

  it.each([
    ['a flipped ciphertext byte', (p: Buffer) => (p[14] ^= 1)],
    ['a flipped tag byte', (p: Buffer) => (p[p.length - 1] ^= 1)],
    ['a flipped nonce byte', (p: Buffer) => (p[0] ^= 1)],
  ])('refuses a value with %s', (_, alter) => {
    const [v, id, payload] = box.seal(SECRET, WEBHOOK).split(':');
    const bytes = Buffer.from(payload, 'base64url');
    alter(bytes);
    expect(() => box.open(`${v}:${id}:${bytes.toString('base64url')}`, WEBHOOK)).toThrow(SecretUnreadableError);
  });

  it('refuses a truncated or empty value', () => {
    const sealed = box.seal(SECRET, WEBHOOK);
    expect(() => box.open(sealed.slice(0, 20), WEBHOOK)).toThrow(SecretUnreadableError);
    expect(() => box.open('v1:k1:', WEBHOOK)).toThrow(SecretUnreadableError);
  });

  it('refuses a value relabelled with another key id of the ring', () => {
    const ring = new SecretBox(parseKeyring(`k1:${k1},k2:${k1}`));
    const relabelled = ring.seal(SECRET, WEBHOOK).replace(/^v1:k1:/, 'v1:k2:');
    expect(() => ring.open(relabelled, WEBHOOK)).toThrow(SecretUnreadableError);
  });

  it('seals with the first key and opens with any key of the ring (rotation)', () => {
    const old = new SecretBox(parseKeyring(`k1:${k1}`)).seal(SECRET, WEBHOOK);
    const rotated = new SecretBox(parseKeyring(`k2:${k2},k1:${k1}`));
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.open(old, WEBHOOK)).toBe(SECRET);
    expect(rotated.isCurrent(old)).toBe(false);
    const resealed = rotated.seal(SECRET, WEBHOOK);
    expect(resealed).toMatch(/^v1:k2:/);
    expect(rotated.isCurrent(resealed)).toBe(true);
  });

  it('names a key the ring does not hold', () => {
    const sealed = new SecretBox(parseKeyring(`gone:${k1}`)).seal(SECRET, WEBHOOK);
    expect(() => box.open(sealed, WEBHOOK)).toThrow(/sealed with key "gone", which WEBHOOK_SECRET_KEYS does not hold/);
  });

  it('does not take "v1:k1:" of another key id as current', () => {
    const ring = new SecretBox(parseKeyring(`k1:${k1}`));
    expect(ring.isCurrent(new SecretBox(parseKeyring(`k10:${k2}`)).seal(SECRET, WEBHOOK))).toBe(false);
  });
});

describe('parseKeyring', () => {
  it('reads keys in order, with spaces around commas', () => {
    const [a, b] = [key(), key()];
    const ring = parseKeyring(` new_2:${a} , old-1:${b}`);
    expect(ring.map((k) => k.id)).toEqual(['new_2', 'old-1']);
    expect(ring[0].key).toEqual(Buffer.from(a, 'base64'));
    expect(parseKeyring(newKeyring('dev'))[0].key).toHaveLength(32);
  });

  it.each([
    ['', /no key/],
    [`${'a'.repeat(44)}`, /key 1: expected <keyId>:<key>/],
    [`bad id:${'A'.repeat(43)}=`, /key 1: expected <keyId>:<key>/],
    [`k1:${randomBytes(16).toString('base64')}`, /key "k1": expected the base64 of 32 bytes/],
    ['k1:not base64 at all!', /key "k1": expected the base64 of 32 bytes/],
    [`k1:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`, /key "k1" is listed twice/],
  ])('refuses %j', (value, problem) => {
    expect(() => parseKeyring(value)).toThrow(problem);
  });
});

describe('WEBHOOK_SECRET_KEYS', () => {
  const DB = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

  it('is optional outside production', () => {
    expect(loadEnv(WebhooksEnv, { ...DB, NODE_ENV: 'development' }).WEBHOOK_SECRET_KEYS).toBeUndefined();
  });

  it('is required in production, with a message saying what to set', () => {
    expect(() => loadEnv(WebhooksEnv, { ...DB, NODE_ENV: 'production' })).toThrow(
      /WEBHOOK_SECRET_KEYS: .*required in production: <keyId>:<base64 of 32 random bytes>.*\(got nothing\)/,
    );
    const ring = `k1:${key()}`;
    expect(loadEnv(WebhooksEnv, { ...DB, NODE_ENV: 'production', WEBHOOK_SECRET_KEYS: ring }).WEBHOOK_SECRET_KEYS).toBe(ring);
  });

  it('refuses a malformed keyring in any environment without showing it', () => {
    const short = `k1:${randomBytes(16).toString('base64')}`;
    for (const NODE_ENV of ['development', 'production']) {
      const attempt = () => loadEnv(WebhooksEnv, { ...DB, NODE_ENV, WEBHOOK_SECRET_KEYS: short });
      expect(attempt).toThrow(
        /WEBHOOK_SECRET_KEYS: .*key "k1": expected the base64 of 32 bytes.*\(got a value that is not shown\)/,
      );
      expect(attempt).not.toThrow(short.slice(3));
    }
  });
});

describe('devKeyring', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'webhook-keys-'));

  it('makes a keyring of one key at first and reuses it afterwards', async () => {
    const file = join(dir(), 'nested', 'webhook-secret-keys');
    const made = await devKeyring(file);
    expect(parseKeyring(made).map((k) => k.id)).toEqual(['dev']);
    expect(readFileSync(file, 'utf8').trim()).toBe(made);
    expect(await devKeyring(file)).toBe(made);
  });

  it('gives every process starting at once the same key', async () => {
    const file = join(dir(), 'webhook-secret-keys');
    const rings = await Promise.all(Array.from({ length: 8 }, () => devKeyring(file)));
    expect(new Set(rings).size).toBe(1);
  });

  it('refuses a file that does not hold a keyring, naming it', async () => {
    const file = join(dir(), 'webhook-secret-keys');
    writeFileSync(file, 'garbage');
    await expect(devKeyring(file)).rejects.toThrow(`${file} (the development keyring of webhook secrets): key 1`);
  });
});
