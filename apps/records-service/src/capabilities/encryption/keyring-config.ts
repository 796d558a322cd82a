import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EncryptionEnv } from './encryption.env';
import { KeyConfigurationError } from './key-configuration.error';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { LocalKeyring } from './local-keyring';
import { Pkcs11Keys } from './pkcs11-keys';

export const DEV_KEYRING_FILE = '.data/keyring.json';

interface KeyringFile {
  active?: string;
  keys: Record<string, string>;
}

function decodeKey(id: string, base64: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  if (key.length !== 32) throw new KeyConfigurationError(`keyring key ${id} is not 32 bytes of base64`);
  return key;
}

function parseKeyringFile(path: string, text: string): { keys: Map<string, Buffer>; active?: string } {
  let file: KeyringFile;
  try {
    file = JSON.parse(text) as KeyringFile;
  } catch {
    throw new KeyConfigurationError(`ENCRYPTION_KEYRING_FILE ${path} is not JSON`);
  }
  if (typeof file?.keys !== 'object' || file.keys === null || Object.keys(file.keys).length === 0) {
    throw new KeyConfigurationError(`ENCRYPTION_KEYRING_FILE ${path} has no "keys"`);
  }
  const keys = new Map(Object.entries(file.keys).map(([id, b64]) => [id, decodeKey(id, String(b64))]));
  return { keys, active: file.active };
}

/** Reads the keyring file; outside production the default file is created with a first key. */
function readKeyringFile(path: string, createIfMissing: boolean): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !createIfMissing) {
      throw new KeyConfigurationError(`ENCRYPTION_KEYRING_FILE ${path} cannot be read: ${(err as Error).message}`);
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  const text = JSON.stringify({ active: 'dev-1', keys: { 'dev-1': randomBytes(32).toString('base64') } }, null, 2);
  try {
    writeFileSync(path, `${text}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(path, 'utf8');
}

function localKeys(env: EncryptionEnv): { keys: Map<string, Buffer>; active?: string } {
  if (env.ENCRYPTION_KEYRING) {
    const pairs = env.ENCRYPTION_KEYRING.split(',').map((p) => p.split(':') as [string, string]);
    return { keys: new Map(pairs.map(([id, b64]) => [id, decodeKey(id, b64)])), active: pairs[pairs.length - 1][0] };
  }
  const production = env.NODE_ENV === 'production';
  if (!env.ENCRYPTION_KEYRING_FILE && production) {
    throw new KeyConfigurationError(
      'ENCRYPTION_KEYRING or ENCRYPTION_KEYRING_FILE is required in production (or ENCRYPTION_KMS=pkcs11)',
    );
  }
  const path = env.ENCRYPTION_KEYRING_FILE ?? DEV_KEYRING_FILE;
  return parseKeyringFile(path, readKeyringFile(path, !env.ENCRYPTION_KEYRING_FILE));
}

function tenantKeys(env: EncryptionEnv): Map<string, string> {
  if (!env.ENCRYPTION_TENANT_KEYS) return new Map();
  return new Map(env.ENCRYPTION_TENANT_KEYS.split(',').map((p) => p.split('=') as [string, string]));
}

/**
 * The KMS adapter ENCRYPTION_KMS names, checked before the service accepts requests: a
 * missing, malformed or unusable key is a refusal to start, never a 500 later.
 */
export async function keyEncryptionKeysFromEnv(env: EncryptionEnv): Promise<KeyEncryptionKeys> {
  const tenants = tenantKeys(env);
  let kms: KeyEncryptionKeys;
  if (env.ENCRYPTION_KMS === 'pkcs11') {
    if (!env.ENCRYPTION_ACTIVE_KEY)
      throw new KeyConfigurationError('ENCRYPTION_ACTIVE_KEY (a key label on the token) is required with pkcs11');
    kms = Pkcs11Keys.open(
      { module: env.PKCS11_MODULE ?? '', tokenLabel: env.PKCS11_TOKEN_LABEL ?? '', pin: env.PKCS11_PIN ?? '' },
      env.ENCRYPTION_ACTIVE_KEY,
      tenants,
    );
  } else {
    const { keys, active } = localKeys(env);
    const activeId = env.ENCRYPTION_ACTIVE_KEY ?? active ?? [...keys.keys()].pop() ?? '';
    kms = new LocalKeyring(keys, activeId, tenants);
  }
  try {
    await kms.selfTest();
  } catch (err) {
    await kms.close();
    throw new KeyConfigurationError(`the key-encryption keys do not work: ${(err as Error).message}`);
  }
  return kms;
}
