import { Injectable } from '@nestjs/common';
import { BlobEntity } from './blob.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Queries and locks of blobs; their reference counts and removal are the database's (triggers). */
@Injectable()
export class BlobRepository {
  constructor(private readonly tx: Transactions) {}

  /** The vault's blob of these bytes, locked so that its last reference cannot go meanwhile. */
  lockBySha256(tx: Tx, vaultId: string, sha256: string): Promise<BlobEntity | null> {
    return tx.findOne(BlobEntity, { where: { vaultId, sha256 }, lock: { mode: 'pessimistic_write' } });
  }

  find(id: string, tx: Tx = this.tx.none): Promise<BlobEntity | null> {
    return tx.findOne(BlobEntity, { where: { id } });
  }

  /** Inserts a blob with no reference yet (the version inserted next takes the first). */
  async insert(tx: Tx, blob: Omit<BlobEntity, 'refCount' | 'createdAt'>): Promise<BlobEntity> {
    await tx.insert(BlobEntity, blob);
    return { ...blob, refCount: 0, createdAt: new Date() };
  }
}
