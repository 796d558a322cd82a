import { Injectable, Logger } from '@nestjs/common';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultKeyRepository, VaultKeyRow } from '../../persistence/vault-keys/vault-key.repository';
import { EncryptionEnv } from './encryption.env';
import { KeyUnwrapError, VaultKeyDestroyedError } from './encryption.errors';
import { KeyCache } from './key-cache';
import { KeyEncryptionKeys } from './key-encryption-keys';
import { formatIdentity, formatRecipient, newSecretKey, parseRecipient, publicKeyOf } from './x25519';

export interface RotationResult {
  rewrapped: number;
  /** Vaults whose key did not unwrap (left as it was). */
  failed: string[];
}

export interface RotationBatch extends RotationResult {
  /** Where the next batch starts, or null when this one was the last. */
  next: string | null;
}

/** What a wrapped vault key is bound to: its tenant and vault (a copied row does not open). */
const keyContext = (tenantId: string, vaultId: string) => Buffer.from(`vault-key:v1:${tenantId}:${vaultId}`);

/**
 * Vault keys: an X25519 key pair per vault, created on first use. The public half (the
 * age recipient) is stored plain and is all that encrypting needs; the secret half is
 * stored only wrapped by the tenant's KEK and kept unwrapped in a small in-memory cache.
 */
@Injectable()
export class VaultKeysService {
  private readonly log = new Logger(VaultKeysService.name);
  private readonly cache: KeyCache;

  constructor(
    private readonly kms: KeyEncryptionKeys,
    private readonly keys: VaultKeyRepository,
    private readonly tx: Transactions,
    env: EncryptionEnv,
  ) {
    this.cache = new KeyCache(env.VAULT_KEY_CACHE_SECONDS * 1000, env.VAULT_KEY_CACHE_ENTRIES);
  }

  /** The vault's public key (age recipient) to encrypt to; creates the vault key on first use. */
  async recipient(vaultId: string): Promise<Buffer> {
    const row = (await this.keys.find(vaultId)) ?? (await this.create(vaultId));
    if (row.destroyedAt) throw new VaultKeyDestroyedError(vaultId);
    return parseRecipient(row.recipient);
  }

  /** The vault's secret key (to open envelopes), from the cache or unwrapped by the KMS. */
  identity(vaultId: string): Promise<Buffer> {
    return this.cache.get(vaultId, async () => {
      const row = await this.keys.find(vaultId);
      if (!row) throw new KeyUnwrapError(`vault ${vaultId} has no key`);
      return this.unwrap(row);
    });
  }

  /** `AGE-SECRET-KEY-1…`: the vault's identity for the age CLI (an export the customer can leave with). */
  async exportIdentity(vaultId: string): Promise<string> {
    return formatIdentity(await this.identity(vaultId));
  }

  /**
   * Crypto-erase: destroys the vault's key so that every copy of its files' bytes (stores,
   * backups, old object versions) can no longer be decrypted. Irreversible. Returns
   * whether a live key was destroyed. Other instances drop their cached copy within
   * VAULT_KEY_CACHE_SECONDS.
   */
  async destroy(vaultId: string): Promise<boolean> {
    this.cache.evict(vaultId);
    const destroyed = await this.keys.destroy(vaultId);
    this.cache.evict(vaultId);
    if (destroyed) this.log.warn(`vault key destroyed (crypto-erase): vault ${vaultId}`);
    return destroyed;
  }

  /**
   * Rewraps up to `batchSize` vault keys (in vault id order after `after`) not wrapped with
   * their tenant's active KEK (a KEK rotation): database rows only, no stored object
   * changes. Each batch commits on its own, so a stopped rotation resumes where it was; a
   * key service outage rolls the batch back. A key that does not unwrap is left as it is
   * and reported in `failed`.
   */
  rotateBatch(batchSize = 100, after: string | null = null): Promise<RotationBatch> {
    return this.tx.run(async (tx) => {
      const stale = { tenantKeks: this.kms.tenantKeks(), defaultKek: this.kms.defaultKekId, after };
      const rows = await this.keys.lockStale(tx, stale, batchSize);
      const batch: RotationBatch = { rewrapped: 0, failed: [], next: rows.at(-1)?.vaultId ?? null };
      for (const row of rows) {
        if (await this.rewrap(tx, row)) batch.rewrapped += 1;
        else batch.failed.push(row.vaultId);
      }
      return batch;
    });
  }

  /** Rewraps every stale vault key, batch after batch. */
  async rotateAll(batchSize = 100, onBatch?: (total: number) => void): Promise<RotationResult> {
    const result: RotationResult = { rewrapped: 0, failed: [] };
    let after: string | null = null;
    do {
      const batch = await this.rotateBatch(batchSize, after);
      result.rewrapped += batch.rewrapped;
      result.failed.push(...batch.failed);
      after = batch.next;
      onBatch?.(result.rewrapped);
    } while (after !== null);
    return result;
  }

  private async rewrap(tx: Tx, row: VaultKeyRow): Promise<boolean> {
    let secret: Buffer;
    try {
      secret = await this.unwrap(row);
    } catch (err) {
      if (!(err instanceof KeyUnwrapError)) throw err;
      this.log.error(`vault key of vault ${row.vaultId} does not unwrap, left as it is: ${err.message}`);
      return false;
    }
    const { kekId, wrapped } = await this.kms.wrap(row.tenantId, secret, keyContext(row.tenantId, row.vaultId));
    secret.fill(0);
    await this.keys.rewrap(tx, row.vaultId, kekId, wrapped);
    return true;
  }

  /** Drops the vault's key from this process's cache (its row was destroyed in a transaction). */
  forget(vaultId: string): void {
    this.cache.evict(vaultId);
  }

  /** Live vault keys per KEK id (rotation progress). */
  keysByKek(): Promise<{ kekId: string; count: number }[]> {
    return this.keys.countByKek();
  }

  private async create(vaultId: string): Promise<VaultKeyRow> {
    const tenantId = await this.keys.tenantOf(vaultId);
    if (tenantId === null) throw new KeyUnwrapError(`vault ${vaultId} does not exist`);
    const secret = newSecretKey();
    const { kekId, wrapped } = await this.kms.wrap(tenantId, secret, keyContext(tenantId, vaultId));
    const recipient = formatRecipient(publicKeyOf(secret));
    secret.fill(0);
    const row = await this.keys.insertIfAbsent({ vaultId, tenantId, recipient, kekId, wrappedKey: wrapped });
    if (!row) throw new KeyUnwrapError(`vault ${vaultId} does not exist`);
    return row;
  }

  private unwrap(row: VaultKeyRow): Promise<Buffer> {
    if (row.destroyedAt || !row.kekId || !row.wrappedKey) throw new VaultKeyDestroyedError(row.vaultId);
    return this.kms.unwrap({ kekId: row.kekId, wrapped: row.wrappedKey }, keyContext(row.tenantId, row.vaultId));
  }
}
