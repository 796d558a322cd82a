import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ApplicationEntity } from '../../persistence/tenants/application.entity';
import { isStorableText } from '@vault/platform';
import { isIdentifier } from './identifiers';
import { OrganisationUserEntity } from '../../persistence/tenants/organisation-user.entity';

/** Read access to applications and organisation users (the bootstrap writes them). */
@Injectable()
export class DirectoryService {
  constructor(
    @InjectRepository(ApplicationEntity)
    private readonly applications: Repository<ApplicationEntity>,
    @InjectRepository(OrganisationUserEntity)
    private readonly users: Repository<OrganisationUserEntity>,
  ) {}

  /** The application with this client id, only when it belongs to the tenant. */
  async findApplication(
    tenantId: string,
    clientId: string,
  ): Promise<ApplicationEntity | undefined> {
    if (!isIdentifier(tenantId) || !isIdentifier(clientId)) return undefined;
    const app = await this.applications.findOne({ where: { clientId } });
    return app && app.tenantId === tenantId ? app : undefined;
  }

  /** The tenant's user with this username (case-insensitive). */
  findUser(
    tenantId: string,
    username: string,
  ): Promise<OrganisationUserEntity | undefined> {
    if (!isIdentifier(tenantId) || !isStorableText(username)) {
      return Promise.resolve(undefined);
    }
    return findUserByUsername(this.users.manager, tenantId, username);
  }
}

/** Looks a tenant's user up by username, case-insensitively (inside any transaction). */
export async function findUserByUsername(
  m: EntityManager,
  tenantId: string,
  username: string,
): Promise<OrganisationUserEntity | undefined> {
  const user = await m
    .createQueryBuilder(OrganisationUserEntity, 'u')
    .where('u.tenant_id = :tenantId AND lower(u.username) = lower(:username)', {
      tenantId,
      username,
    })
    .getOne();
  return user ?? undefined;
}
