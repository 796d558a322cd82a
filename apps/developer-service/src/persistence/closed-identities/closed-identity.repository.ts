import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ClosedIdentityEntity } from './closed-identity.entity';

/** Identities of deleted accounts, kept for good. */
@Injectable()
export class ClosedIdentityRepository {
  constructor(private readonly ds: DataSource) {}

  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** Stores the identity once: a second insert of the same (tenant, openId) changes nothing. */
  async insertOnce(identity: ClosedIdentityEntity, tx: EntityManager = this.ds.manager): Promise<void> {
    await tx.createQueryBuilder().insert().into(ClosedIdentityEntity).values(identity).orIgnore().execute();
  }

  exists(tenantId: string, openId: string): Promise<boolean> {
    return this.ds.manager.existsBy(ClosedIdentityEntity, { tenantId, openId });
  }
}
