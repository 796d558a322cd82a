import { Injectable } from '@nestjs/common';
import type { Tx } from '@vault/platform/persistence';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';
import { BlobCipherService } from './blob-cipher.service';
import { encryptionProblem } from './encryption.problems';
import { VaultKeysService } from './vault-keys.service';

/**
 * The envelopes of blobs a record took to another vault, rewrapped to that vault's key in
 * the transaction that moves the record: the header is rebuilt with the same file key and
 * payload nonce, no stored object is read or written, and from the commit on no read of
 * them needs the old vault's key (which its owner may destroy at once). A key service that
 * does not answer rolls the move back (503 with Retry-After).
 */
@Injectable()
export class MovedBlobsService {
  constructor(
    private readonly seals: BlobEnvelopeRepository,
    private readonly cipher: BlobCipherService,
    private readonly vaultKeys: VaultKeysService,
  ) {}

  /**
   * Before the moving transaction: makes sure the destination has its vault key and the
   * source's is unwrapped (cached), when the record has encrypted files. A vault key is
   * created in a transaction of its own, which could not wait for the vault rows the move
   * locks.
   */
  async prepare(recordId: string, fromVaultId: string, toVaultId: string): Promise<void> {
    if (!(await this.seals.recordHasSealed(recordId))) return;
    try {
      await this.vaultKeys.recipient(toVaultId);
      await this.vaultKeys.identity(fromVaultId);
    } catch (err) {
      throw encryptionProblem(err);
    }
  }

  /** Rewraps the blobs now in `toVaultId` still sealed to `fromVaultId`; returns how many. */
  async rewrapMoved(tx: Tx, fromVaultId: string, toVaultId: string): Promise<number> {
    const moved = await this.seals.lockMoved(tx, fromVaultId, toVaultId);
    try {
      for (const b of moved) {
        const envelope = await this.cipher.rewrap(b.envelope as Buffer, fromVaultId, toVaultId);
        await this.seals.rewrapped(tx, b.id, envelope, toVaultId);
      }
    } catch (err) {
      throw encryptionProblem(err);
    }
    return moved.length;
  }
}
