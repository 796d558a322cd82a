import { Injectable, Logger } from '@nestjs/common';
import type { Tx } from '@vault/platform/persistence';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';
import { VaultKeyRepository } from '../../persistence/vault-keys/vault-key.repository';
import { BlobCipherService } from './blob-cipher.service';
import { VaultKeysService } from './vault-keys.service';

const BATCH = 200;

/**
 * Crypto-erase of a vault, in the transaction that purges it (after its legal holds and
 * retention were checked): blobs that moved records took to other vaults but whose
 * envelopes are still sealed to this vault's key are rewrapped to their vault first, then
 * the key is destroyed. Every copy of the vault's own bytes (stores, backups, old object
 * versions) is unreadable from the commit on. A key service outage rolls the purge back.
 */
@Injectable()
export class CryptoEraseService {
  private readonly log = new Logger(CryptoEraseService.name);

  constructor(
    private readonly seals: BlobEnvelopeRepository,
    private readonly cipher: BlobCipherService,
    private readonly keys: VaultKeyRepository,
    private readonly vaultKeys: VaultKeysService,
  ) {}

  async eraseVault(tx: Tx, vaultId: string): Promise<void> {
    for (let moved = await this.seals.lockForeign(tx, BATCH, vaultId); moved.length > 0; ) {
      for (const b of moved) {
        const envelope = await this.cipher.rewrap(b.envelope as Buffer, vaultId, b.vaultId);
        await this.seals.rewrapped(tx, b.id, envelope, b.vaultId);
      }
      moved = moved.length < BATCH ? [] : await this.seals.lockForeign(tx, BATCH, vaultId);
    }
    if (await this.keys.destroy(vaultId, tx)) {
      this.vaultKeys.forget(vaultId);
      this.log.warn(`crypto-erase: the key of vault ${vaultId} is destroyed with the vault`);
    }
  }
}
