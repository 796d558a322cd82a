import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { loadEnv } from '@vault/platform/config';
import { dataSourceOptions, Transactions } from '@vault/platform/persistence';
import { spawnAppEntry, type TestDatabase } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import { EncryptionEnv } from '../src/capabilities/encryption/encryption.env';
import { LocalKeyring } from '../src/capabilities/encryption/local-keyring';
import { VaultKeysService } from '../src/capabilities/encryption/vault-keys.service';
import { MIGRATIONS } from '../src/migrations';
import { ENTITIES } from '../src/persistence/entities';
import { VaultKeyRepository } from '../src/persistence/vault-keys/vault-key.repository';
import { createRecordsDatabase } from './records-database';

const VAULTS = 600;
const k1 = randomBytes(32);
const k2 = randomBytes(32);
const keyring = (keys: Record<string, Buffer>) =>
  Object.entries(keys)
    .map(([id, key]) => `${id}:${key.toString('base64')}`)
    .join(',');

/** `fn` for each of `ids`, `width` at a time (the keys are independent rows; the pool has 10 connections). */
async function eachOf(ids: string[], fn: (id: string) => Promise<void>, width = 8): Promise<void> {
  for (let i = 0; i < ids.length; i += width) await Promise.all(ids.slice(i, i + width).map(fn));
}

/** `node main.js vault-keys rotate` killed -9 after its first committed batch, then run again. */
describe('vault-keys rotate killed mid-rotation', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let keys: VaultKeysService;
  let repo: VaultKeyRepository;

  beforeAll(async () => {
    db = await createRecordsDatabase('vault_keys_kill');
    ds = new DataSource(dataSourceOptions(db.url, { entities: ENTITIES, migrations: MIGRATIONS }, true));
    await ds.initialize();
    await ds.runMigrations();
    const tx = new Transactions(ds);
    repo = new VaultKeyRepository(tx);
    keys = new VaultKeysService(new LocalKeyring(new Map([['k1', k1]]), 'k1'), repo, tx, loadEnv(EncryptionEnv, {}));
    const ids = Array.from({ length: VAULTS }, () => randomUUID());
    await ds.query(
      `INSERT INTO vaults (id, tenant_id, name, type, created_by)
       SELECT id, 'tenant-kill', 'V', 'individual', 'u' FROM unnest($1::uuid[]) AS id`,
      [ids],
    );
    await eachOf(ids, async (id) => void (await keys.recipient(id)));
  }, 120_000);
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const rotate = () =>
    spawnAppEntry('records-service', ['vault-keys', 'rotate'], {
      DATABASE_URL: db.url,
      NODE_ENV: 'test',
      ENCRYPTION_KEYRING: keyring({ k1, k2 }),
    });
  const byKek = async () => Object.fromEntries((await repo.countByKek()).map((r) => [r.kekId, r.count]));

  it('loses no key: every one unwraps after the kill, and a second run finishes the rotation', async () => {
    const first = rotate();
    while (!/rewrapped \d+ vault keys/.test(first.output())) {
      if (first.child.exitCode !== null) throw new Error(`rotate ended before its first batch:\n${first.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    const midway = await byKek();
    expect((midway.k1 ?? 0) + (midway.k2 ?? 0)).toBe(VAULTS);
    expect(midway.k2).toBeGreaterThanOrEqual(100);

    const both = new VaultKeysService(
      new LocalKeyring(
        new Map([
          ['k1', k1],
          ['k2', k2],
        ]),
        'k2',
      ),
      repo,
      new Transactions(ds),
      loadEnv(EncryptionEnv, { VAULT_KEY_CACHE_SECONDS: '0' }),
    );
    const rows: { vault_id: string }[] = await ds.query(`SELECT vault_id FROM vault_keys`);
    expect(rows).toHaveLength(VAULTS);
    await eachOf(
      rows.map((r) => r.vault_id),
      async (id) => expect((await both.identity(id)).length).toBe(32),
    );

    const second = rotate();
    const [code] = (await once(second.child, 'exit')) as [number];
    expect(code).toBe(0);
    expect(await byKek()).toEqual({ k2: VAULTS });
  }, 180_000);
});
