import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { ApplicationEntity } from './application.entity';

/** The stored fields of an application (the dates are the database's). */
export type ApplicationFields = Omit<ApplicationEntity, 'createdAt' | 'updatedAt'>;

/** Client applications of the tenants, by client id (unique across the platform). */
@Injectable()
export class ApplicationRepository {
  constructor(private readonly ds: DataSource) {}

  find(clientId: string, tx: EntityManager = this.ds.manager): Promise<ApplicationEntity | null> {
    return tx.findOne(ApplicationEntity, { where: { clientId } });
  }

  /** Every application's browser origins (an empty list for those that registered none). */
  origins(): Promise<Pick<ApplicationEntity, 'clientId' | 'tenantId' | 'allowedOrigins'>[]> {
    return this.ds.manager.find(ApplicationEntity, {
      select: { clientId: true, tenantId: true, allowedOrigins: true },
      order: { clientId: 'ASC' },
    });
  }

  async insert(tx: EntityManager, application: ApplicationFields): Promise<void> {
    await tx.insert(ApplicationEntity, application);
  }

  async update(tx: EntityManager, clientId: string, changes: Partial<ApplicationFields>): Promise<void> {
    await tx.update(ApplicationEntity, { clientId }, changes);
  }
}
