import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { loadEnv } from '@vault/platform/config';
import { dataSourceOptions, Transactions } from '@vault/platform/persistence';
import type { TestDatabase } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import { CHUNK } from '../src/capabilities/encryption/age-stream';
import { BlobCipherService } from '../src/capabilities/encryption/blob-cipher.service';
import { EncryptionEnv } from '../src/capabilities/encryption/encryption.env';
import {
  KeyServiceUnavailableError,
  KeyUnwrapError,
  VaultKeyDestroyedError,
} from '../src/capabilities/encryption/encryption.errors';
import { KeyEncryptionKeys, WrappedKey } from '../src/capabilities/encryption/key-encryption-keys';
import { LocalKeyring } from '../src/capabilities/encryption/local-keyring';
import { VaultKeysService } from '../src/capabilities/encryption/vault-keys.service';
import { runVaultKeysCommand } from '../src/capabilities/encryption/vault-keys.command';
import { parseIdentity } from '../src/capabilities/encryption/x25519';
import { publicKeyOf } from '../src/capabilities/encryption/x25519';
import { MIGRATIONS } from '../src/migrations';
import { ENTITIES } from '../src/persistence/entities';
import { VaultKeyRepository } from '../src/persistence/vault-keys/vault-key.repository';
import { createRecordsDatabase } from './records-database';

const run = promisify(execFile);
const env = loadEnv(EncryptionEnv, {});
const k1 = randomBytes(32);
const k2 = randomBytes(32);
const ring = (active: string, keys: Record<string, Buffer>) => new LocalKeyring(new Map(Object.entries(keys)), active);

/** A key service whose unwraps fail as an unreachable HSM would, while `down` is set. */
class FlakyKeys extends KeyEncryptionKeys {
  down = false;
  wrapsLeft = Number.POSITIVE_INFINITY;
  constructor(private readonly inner: KeyEncryptionKeys) {
    super(inner.defaultKekId);
  }
  unwrap(key: WrappedKey, aad: Buffer): Promise<Buffer> {
    if (this.down) return Promise.reject(new KeyServiceUnavailableError('token unreachable'));
    return this.inner.unwrap(key, aad);
  }
  protected wrapWith(_kekId: string, plain: Buffer, aad: Buffer): Promise<Buffer> {
    if (this.wrapsLeft-- <= 0) return Promise.reject(new KeyServiceUnavailableError('token unreachable'));
    return this.inner.wrap('', plain, aad).then((w) => w.wrapped);
  }
}

let db: TestDatabase;
let ds: DataSource;
let tx: Transactions;
let repo: VaultKeyRepository;

beforeAll(async () => {
  db = await createRecordsDatabase('vault_keys');
  ds = new DataSource(dataSourceOptions(db.url, { entities: ENTITIES, migrations: MIGRATIONS }, true));
  await ds.initialize();
  await ds.runMigrations();
  tx = new Transactions(ds);
  repo = new VaultKeyRepository(tx);
});
afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

async function newVault(tenant = 'tenant-a'): Promise<string> {
  const id = randomUUID();
  await ds.query(`INSERT INTO vaults (id, tenant_id, name, type, created_by) VALUES ($1, $2, 'V', 'individual', 'u')`, [
    id,
    tenant,
  ]);
  return id;
}

const service = (kms: KeyEncryptionKeys) => new VaultKeysService(kms, repo, tx, env);

async function sealBlob(cipher: BlobCipherService, vaultId: string, plain: Buffer) {
  const { envelope, stream } = await cipher.seal(vaultId);
  const parts: Buffer[] = [];
  stream.on('data', (p: Buffer) => parts.push(p));
  await pipeline(Readable.from([plain]), stream);
  return { envelope, object: Buffer.concat(parts) };
}

async function openBlob(cipher: BlobCipherService, vaultId: string, blob: { envelope: Buffer; object: Buffer }) {
  const stream = await cipher.open(vaultId, blob.envelope);
  const parts: Buffer[] = [];
  stream.on('data', (p: Buffer) => parts.push(p));
  await pipeline(Readable.from([blob.object]), stream);
  return Buffer.concat(parts);
}

describe('vault keys', () => {
  it('are created once on first use, stored wrapped, and open what was sealed to them', async () => {
    const keys = service(ring('k1', { k1 }));
    const vault = await newVault();
    const recipients = await Promise.all([1, 2, 3, 4].map(() => keys.recipient(vault)));
    expect(new Set(recipients.map((r) => r.toString('hex'))).size).toBe(1);
    const identity = await keys.identity(vault);
    expect(publicKeyOf(identity).equals(recipients[0])).toBe(true);
    const row = await repo.find(vault);
    expect(row?.kekId).toBe('k1');
    expect(row?.wrappedKey?.includes(identity)).toBe(false);
  });

  it('export an identity with which the age CLI decrypts the vault blobs, byte for byte', async () => {
    const keys = service(ring('k1', { k1 }));
    const cipher = new BlobCipherService(keys);
    const vault = await newVault();
    const plain = randomBytes(2 * CHUNK + 300);
    const blob = await sealBlob(cipher, vault, plain);
    const dir = await mkdtemp(join(tmpdir(), 'vault-export-'));
    try {
      await writeFile(join(dir, 'vault.age'), Buffer.concat([blob.envelope, blob.object]));
      await writeFile(join(dir, 'identity.txt'), `${await keys.exportIdentity(vault)}\n`, { mode: 0o600 });
      const { stdout } = await run('age', ['-d', '-i', join(dir, 'identity.txt'), join(dir, 'vault.age')], {
        encoding: 'buffer',
        maxBuffer: 16 * 1024 * 1024,
      });
      expect(stdout.equals(plain)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rotate to a new KEK in the database only, resuming after a failure mid-batch', async () => {
    const vaults = await Promise.all([1, 2, 3].map(() => newVault('tenant-rot')));
    const before = service(ring('k1', { k1 }));
    const cipher = new BlobCipherService(before);
    const blobs = await Promise.all(vaults.map((v) => sealBlob(cipher, v, randomBytes(1000))));
    const flaky = new FlakyKeys(ring('k2', { k1, k2 }));
    flaky.wrapsLeft = 1;
    const rotating = service(flaky);
    await expect(rotating.rotateAll(10)).rejects.toBeInstanceOf(KeyServiceUnavailableError);
    // the failed batch rolled back whole: nothing half-rotated
    for (const v of vaults) expect((await repo.find(v))?.kekId).toBe('k1');
    flaky.wrapsLeft = Number.POSITIVE_INFINITY;
    expect((await rotating.rotateAll(2)).rewrapped).toBeGreaterThanOrEqual(vaults.length);
    const after = service(ring('k2', { k2 }));
    const afterCipher = new BlobCipherService(after);
    for (const [i, v] of vaults.entries()) {
      expect((await repo.find(v))?.kekId).toBe('k2');
      expect((await openBlob(afterCipher, v, blobs[i])).length).toBe(1000);
    }
    expect((await after.keysByKek()).find((k) => k.kekId === 'k1')).toBeUndefined();
  });

  it('do not open when the wrapped key is copied onto another vault', async () => {
    const keys = service(ring('k2', { k2 }));
    const [a, b] = [await newVault(), await newVault()];
    await keys.recipient(a);
    await keys.recipient(b);
    await ds.query(
      `UPDATE vault_keys SET wrapped_key = (SELECT wrapped_key FROM vault_keys WHERE vault_id = $1) WHERE vault_id = $2`,
      [a, b],
    );
    await expect(service(ring('k2', { k2 })).identity(b)).rejects.toBeInstanceOf(KeyUnwrapError);
    await ds.query(`DELETE FROM vaults WHERE id = $1`, [b]);
  });

  it('answer "retry later" while the key service is out, and work again after', async () => {
    const flaky = new FlakyKeys(ring('k2', { k2 }));
    const keys = service(flaky);
    const vault = await newVault();
    await keys.recipient(vault);
    flaky.down = true;
    await expect(keys.identity(vault)).rejects.toBeInstanceOf(KeyServiceUnavailableError);
    flaky.down = false;
    expect((await keys.identity(vault)).length).toBe(32);
  });

  it('crypto-erase: a destroyed key opens nothing again, cached or not, and is never replaced', async () => {
    const keys = service(ring('k2', { k2 }));
    const cipher = new BlobCipherService(keys);
    const vault = await newVault();
    const blob = await sealBlob(cipher, vault, randomBytes(5000));
    expect((await openBlob(cipher, vault, blob)).length).toBe(5000);
    expect(await keys.destroy(vault)).toBe(true);
    await expect(openBlob(cipher, vault, blob)).rejects.toBeInstanceOf(VaultKeyDestroyedError);
    await expect(keys.recipient(vault)).rejects.toBeInstanceOf(VaultKeyDestroyedError);
    await expect(service(ring('k2', { k2 })).identity(vault)).rejects.toBeInstanceOf(VaultKeyDestroyedError);
    const [row] = await ds.query(`SELECT wrapped_key, kek_id, destroyed_at FROM vault_keys WHERE vault_id = $1`, [vault]);
    expect(row).toEqual({ wrapped_key: null, kek_id: null, destroyed_at: expect.any(Date) });
    expect(await keys.destroy(vault)).toBe(false);
  });

  it('go with their vault when its row is purged', async () => {
    const keys = service(ring('k2', { k2 }));
    const vault = await newVault();
    await keys.recipient(vault);
    await ds.query(`DELETE FROM vaults WHERE id = $1`, [vault]);
    expect(await repo.find(vault)).toBeNull();
  });
});

describe('node main.js vault-keys', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    process.exitCode = 0;
  });

  async function command(args: string[], keyring: string): Promise<{ out: string; code: number }> {
    Object.assign(process.env, { DATABASE_URL: db.url, ENCRYPTION_KEYRING: keyring, NODE_ENV: 'test' });
    const writes: string[] = [];
    const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => (writes.push(String(chunk)), true));
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await runVaultKeysCommand(args);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    return { out: writes.join(''), code: Number(process.exitCode ?? 0) };
  }

  it('rotates to the active KEK, reports keys per KEK and exports an identity', async () => {
    const k3 = randomBytes(32);
    const keys = service(ring('k2', { k2 }));
    const [vault, broken] = [await newVault('tenant-cmd'), await newVault('tenant-cmd')];
    await keys.recipient(vault);
    await keys.recipient(broken);
    const identity = await keys.identity(vault);
    await ds.query(`UPDATE vault_keys SET wrapped_key = 'broken'::bytea WHERE vault_id = $1`, [broken]);
    const ring3 = `k3:${k3.toString('base64')}`;
    const rotated = await command(['rotate'], `k2:${k2.toString('base64')},${ring3}`);
    expect(rotated.code).toBe(1);
    expect(JSON.parse(rotated.out)).toMatchObject({
      failed: [broken],
      keysByKek: [
        { kekId: 'k2', count: 1 },
        { kekId: 'k3', count: expect.any(Number) },
      ],
    });
    const exported = await command(['export-identity', vault], ring3);
    expect(parseIdentity(exported.out).equals(identity)).toBe(true);
    expect((await command(['status'], ring3)).out).toContain('"kekId": "k3"');
    expect((await command(['nonsense'], ring3)).code).toBe(64);
  });
});
