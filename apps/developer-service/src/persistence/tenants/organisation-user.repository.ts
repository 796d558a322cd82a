import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { OrganisationUserEntity } from './organisation-user.entity';

/** The stored fields of a new organisation user (its id and dates are the database's). */
export type OrganisationUserFields = Pick<OrganisationUserEntity, 'tenantId' | 'username' | 'passwordHash' | 'roles'>;

/** Organisation users of the tenants; a username is unique per tenant, whatever its case. */
@Injectable()
export class OrganisationUserRepository {
  constructor(private readonly ds: DataSource) {}

  /** The tenant's user with this username, compared case-insensitively (the unique index's terms). */
  async findByUsername(
    tenantId: string,
    username: string,
    tx: EntityManager = this.ds.manager,
  ): Promise<OrganisationUserEntity | undefined> {
    const user = await tx
      .createQueryBuilder(OrganisationUserEntity, 'u')
      .where('u.tenant_id = :tenantId AND lower(u.username) = lower(:username)', { tenantId, username })
      .getOne();
    return user ?? undefined;
  }

  findById(tenantId: string, id: string): Promise<OrganisationUserEntity | null> {
    return this.ds.manager.findOne(OrganisationUserEntity, { where: { tenantId, id } });
  }

  async insert(tx: EntityManager, user: OrganisationUserFields): Promise<void> {
    await tx.insert(OrganisationUserEntity, user);
  }

  async update(tx: EntityManager, id: string, changes: Partial<OrganisationUserFields>): Promise<void> {
    await tx.update(OrganisationUserEntity, { id }, changes);
  }
}
