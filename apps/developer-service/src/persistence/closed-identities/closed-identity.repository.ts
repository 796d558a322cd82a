import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClosedIdentityEntity } from './closed-identity.entity';

/** Identities of deleted accounts, kept for good. */
@Injectable()
export class ClosedIdentityRepository {
  constructor(private readonly ds: DataSource) {}

  /** Stores the identity once: a second insert of the same (tenant, openId) changes nothing. */
  async insertOnce(identity: ClosedIdentityEntity): Promise<void> {
    await this.ds.createQueryBuilder().insert().into(ClosedIdentityEntity).values(identity).orIgnore().execute();
  }

  exists(tenantId: string, openId: string): Promise<boolean> {
    return this.ds.manager.existsBy(ClosedIdentityEntity, { tenantId, openId });
  }
}
