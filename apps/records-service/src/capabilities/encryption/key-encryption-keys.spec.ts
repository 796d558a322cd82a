import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEnv } from '@vault/platform/config';
import { EncryptionEnv } from './encryption.env';
import { KeyConfigurationError } from './key-configuration.error';
import { KeyUnwrapError } from './encryption.errors';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { keyEncryptionKeysFromEnv } from './keyring-config';
import { Pkcs11Keys } from './pkcs11-keys';

const SOFTHSM = '/usr/lib/softhsm/libsofthsm2.so';
const dir = mkdtempSync(join(tmpdir(), 'kek-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = () => randomBytes(32).toString('base64');
const kms = (vars: Record<string, string>) => keyEncryptionKeysFromEnv(loadEnv(EncryptionEnv, vars));
const aad = Buffer.from('vault-key:v1:tenant-a:vault-1');

async function roundTrip(keys: KeyEncryptionKeys, tenant = 'tenant-a') {
  const secret = randomBytes(32);
  const wrapped = await keys.wrap(tenant, secret, aad);
  expect(wrapped.wrapped.includes(secret)).toBe(false);
  expect((await keys.unwrap(wrapped, aad)).equals(secret)).toBe(true);
  return wrapped;
}

describe('local keyring', () => {
  it('wraps with the active key, unwraps with any key of the ring, binds the wrap to its owner', async () => {
    const keys = await kms({ ENCRYPTION_KEYRING: `old:${key()},new:${key()}` });
    const wrapped = await roundTrip(keys);
    expect(wrapped.kekId).toBe('new');
    await expect(keys.unwrap(wrapped, Buffer.from('vault-key:v1:tenant-a:vault-2'))).rejects.toBeInstanceOf(KeyUnwrapError);
    await expect(keys.unwrap({ ...wrapped, kekId: 'old' }, aad)).rejects.toBeInstanceOf(KeyUnwrapError);
  });

  it('gives a tenant its own key and reads a keyring file', async () => {
    const file = join(dir, 'ring.json');
    writeFileSync(file, JSON.stringify({ active: 'a', keys: { a: key(), b: key() } }));
    const keys = await kms({ ENCRYPTION_KEYRING_FILE: file, ENCRYPTION_TENANT_KEYS: 'tenant-b=b' });
    expect((await roundTrip(keys)).kekId).toBe('a');
    expect((await roundTrip(keys, 'tenant-b')).kekId).toBe('b');
  });

  it('refuses to start without keys in production, or with a bad keyring', async () => {
    await expect(kms({ NODE_ENV: 'production' })).rejects.toThrow(/ENCRYPTION_KEYRING or ENCRYPTION_KEYRING_FILE/);
    expect(() => loadEnv(EncryptionEnv, { ENCRYPTION_KEYRING: 'k1:short' })).toThrow(/id:base64key/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"keys":{"a":"c2hvcnQ="}}');
    await expect(kms({ ENCRYPTION_KEYRING_FILE: bad })).rejects.toThrow(/not 32 bytes/);
    await expect(kms({ ENCRYPTION_KEYRING_FILE: join(dir, 'missing.json') })).rejects.toThrow(/cannot be read/);
    await expect(kms({ ENCRYPTION_KEYRING: `a:${key()}`, ENCRYPTION_ACTIVE_KEY: 'b' })).rejects.toBeInstanceOf(
      KeyConfigurationError,
    );
  });

  it('outside production creates a development keyring once and keeps it', async () => {
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const first = await kms({ NODE_ENV: 'development' });
      const wrapped = await roundTrip(first);
      expect(existsSync(join(dir, '.data/keyring.json'))).toBe(true);
      const again = await kms({ NODE_ENV: 'development' });
      expect((await again.unwrap(wrapped, aad)).length).toBe(32);
      expect(JSON.parse(readFileSync(join(dir, '.data/keyring.json'), 'utf8')).active).toBe('dev-1');
    } finally {
      process.chdir(cwd);
    }
  });
});

/** The token directory of the SoftHSM2 configuration SOFTHSM2_CONF names. */
function softhsmTokenDir(): string {
  const conf = process.env['SOFTHSM2_CONF'];
  if (!conf) throw new Error('SOFTHSM2_CONF is not set: run this suite with apps/records-service/jest.config.cts');
  const dir = /^directories\.tokendir\s*=\s*(.+)$/m.exec(readFileSync(conf, 'utf8'))?.[1]?.trim();
  if (!dir) throw new Error(`${conf} names no directories.tokendir`);
  return dir;
}

/**
 * SoftHSM2 reads SOFTHSM2_CONF from the real process environment, which a jest test cannot
 * change: the jest run's global setup (test/global-setup.ts) points it at a token directory
 * in a temporary folder of the run's own. The token, under a label of its own, is deleted
 * afterwards.
 */
describe('PKCS#11 token (SoftHSM2)', () => {
  const label = `vault-kek-${randomBytes(6).toString('hex')}`;
  const pin = '123456';
  let keys: Pkcs11Keys;
  let tokenDir: string;

  beforeAll(() => {
    tokenDir = softhsmTokenDir();
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '654321']);
    const setup = Pkcs11Keys.open({ module: SOFTHSM, tokenLabel: label, pin }, 'kek-1');
    setup.generateKey('kek-1');
    setup.generateKey('kek-2');
    return setup.close();
  });
  afterAll(async () => {
    await keys?.close();
    execFileSync('softhsm2-util', ['--delete-token', '--token', label]);
  });

  const env = (extra: Record<string, string> = {}) => ({
    ENCRYPTION_KMS: 'pkcs11',
    PKCS11_MODULE: SOFTHSM,
    PKCS11_TOKEN_LABEL: label,
    PKCS11_PIN: pin,
    ENCRYPTION_ACTIVE_KEY: 'kek-1',
    ...extra,
  });

  // first: logins are per process, so a wrong PIN is only checked while no other session is logged in
  it('refuses to start with a wrong PIN, an unknown key label or missing settings', async () => {
    await expect(kms(env({ PKCS11_PIN: '000000' }))).rejects.toThrow(/PKCS11_PIN is refused/);
    await expect(kms(env({ ENCRYPTION_ACTIVE_KEY: 'nope' }))).rejects.toThrow(/do not work/);
    expect(() => loadEnv(EncryptionEnv, { ENCRYPTION_KMS: 'pkcs11' })).toThrow(/PKCS11_MODULE is required/);
  });

  it("the token is in the run's own token directory, not the system's", () => {
    expect(tokenDir.startsWith(tmpdir())).toBe(true);
    expect(readdirSync(tokenDir)).toHaveLength(1);
  });

  it('wraps and unwraps with keys that stay on the token', async () => {
    keys = (await kms(env())) as Pkcs11Keys;
    const wrapped = await roundTrip(keys);
    expect(wrapped.kekId).toBe('kek-1');
    const tampered = Buffer.from(wrapped.wrapped);
    tampered[20] ^= 1;
    await expect(keys.unwrap({ ...wrapped, wrapped: tampered }, aad)).rejects.toBeInstanceOf(KeyUnwrapError);
    await expect(keys.unwrap({ ...wrapped, kekId: 'kek-2' }, aad)).rejects.toBeInstanceOf(KeyUnwrapError);
  });
});
