import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { underAdvisoryLock } from '../advisory-lock';
import { TenantEntity } from './tenant.entity';

/** Serialises bootstrap runs of replicas starting together (pg advisory lock key). */
const BOOTSTRAP_LOCK = 0x76617531;

/** Tenants, and the lock under which the bootstrap writes a tenant's directory. */
@Injectable()
export class TenantRepository {
  constructor(private readonly ds: DataSource) {}

  /** Runs `work` in one transaction holding the bootstrap lock: replicas apply the file one after another. */
  underBootstrapLock<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return underAdvisoryLock(this.ds, BOOTSTRAP_LOCK, work);
  }

  find(tx: EntityManager, id: string): Promise<TenantEntity | null> {
    return tx.findOne(TenantEntity, { where: { id } });
  }

  async insert(tx: EntityManager, tenant: Pick<TenantEntity, 'id' | 'name'>): Promise<void> {
    await tx.insert(TenantEntity, tenant);
  }

  async rename(tx: EntityManager, id: string, name: string): Promise<void> {
    await tx.update(TenantEntity, { id }, { name });
  }
}
