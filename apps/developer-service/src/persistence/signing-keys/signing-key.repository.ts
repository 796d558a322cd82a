import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { underAdvisoryLock } from '../advisory-lock';
import { SigningKeyEntity } from './signing-key.entity';

/** Serialises key creation and rotation across replicas (pg advisory lock key). */
const KEY_CREATION_LOCK = 0x76617532;

/** The stored fields of a new key (its creation date is the database's). */
export type SigningKeyFields = Omit<SigningKeyEntity, 'createdAt'>;

/** The token signing keys, and the lock under which one replica at a time creates or rotates them. */
@Injectable()
export class SigningKeyRepository {
  constructor(private readonly ds: DataSource) {}

  /** Runs `work` in one transaction holding the key lock: of replicas checking together, one acts. */
  underKeyLock<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return underAdvisoryLock(this.ds, KEY_CREATION_LOCK, work);
  }

  /** The database's clock, which every replica's rotation decisions follow. */
  async databaseNow(tx: EntityManager): Promise<Date> {
    const [{ now }] = (await tx.query('SELECT now() AS now')) as { now: Date }[];
    return now;
  }

  async hasActive(tx: EntityManager): Promise<boolean> {
    return (await tx.findOne(SigningKeyEntity, { where: { active: true } })) !== null;
  }

  /** Every stored key, by the time it starts (or started) signing. */
  list(order: 'ASC' | 'DESC', tx: EntityManager = this.ds.manager): Promise<SigningKeyEntity[]> {
    return tx.find(SigningKeyEntity, { order: { activatesAt: order } });
  }

  async insert(tx: EntityManager, fields: SigningKeyFields): Promise<SigningKeyEntity> {
    const row = tx.create(SigningKeyEntity, fields);
    await tx.insert(SigningKeyEntity, row);
    return row;
  }

  /** `next` becomes the active key; `active` is retired at the instant `next` took over. */
  async handOver(tx: EntityManager, active: SigningKeyEntity, next: SigningKeyEntity): Promise<void> {
    await tx.update(SigningKeyEntity, { kid: active.kid }, { active: false, retiredAt: next.activatesAt });
    await tx.update(SigningKeyEntity, { kid: next.kid }, { active: true });
  }

  /** Deletes the keys retired more than `retainSeconds` ago (database clock); returns their kids. */
  async deleteRetiredBefore(tx: EntityManager, retainSeconds: number): Promise<string[]> {
    const result = (await tx.query(
      `DELETE FROM signing_keys WHERE NOT active AND retired_at IS NOT NULL
         AND retired_at + make_interval(secs => $1) < now() RETURNING kid`,
      [retainSeconds],
    )) as [{ kid: string }[], number] | { kid: string }[];
    const deleted = Array.isArray(result[0]) ? (result[0] as { kid: string }[]) : (result as { kid: string }[]);
    return deleted.map((r) => r.kid);
  }

  /** Replaces a key's stored private half with its encrypted envelope. */
  async storeEncrypted(kid: string, envelope: string): Promise<void> {
    await this.ds.manager.update(SigningKeyEntity, { kid }, { privateJwk: envelope, encrypted: true });
  }
}
