import { Injectable } from '@nestjs/common';
import { isStorableText } from '@vault/platform/errors';
import { ApplicationEntity } from '../../persistence/tenants/application.entity';
import { ApplicationRepository } from '../../persistence/tenants/application.repository';
import { OrganisationUserEntity } from '../../persistence/tenants/organisation-user.entity';
import { OrganisationUserRepository } from '../../persistence/tenants/organisation-user.repository';
import { isIdentifier } from './identifiers';

/** Read access to applications and organisation users (the bootstrap writes them). */
@Injectable()
export class DirectoryService {
  constructor(
    private readonly applications: ApplicationRepository,
    private readonly users: OrganisationUserRepository,
  ) {}

  /** The application with this client id, only when it belongs to the tenant. */
  async findApplication(tenantId: string, clientId: string): Promise<ApplicationEntity | undefined> {
    if (!isIdentifier(tenantId) || !isIdentifier(clientId)) return undefined;
    const app = await this.applications.find(clientId);
    return app && app.tenantId === tenantId ? app : undefined;
  }

  /** The tenant's user with this username (case-insensitive). */
  async findUser(tenantId: string, username: string): Promise<OrganisationUserEntity | undefined> {
    if (!isIdentifier(tenantId) || !isStorableText(username)) return undefined;
    return this.users.findByUsername(tenantId, username);
  }

  /** The tenant's user with this id (a refresh token's user). */
  async findUserById(tenantId: string, id: string): Promise<OrganisationUserEntity | undefined> {
    return (await this.users.findById(tenantId, id)) ?? undefined;
  }
}
