import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationEntity } from '../../persistence/tenants/application.entity';
import { DirectoryService } from './directory.service';
import { OrganisationUserEntity } from '../../persistence/tenants/organisation-user.entity';
import { PasswordHasher } from './password-hasher';
import { TenantEntity } from '../../persistence/tenants/tenant.entity';

/** Tenants, client applications and organisation users, with their credential hashing. */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      TenantEntity,
      ApplicationEntity,
      OrganisationUserEntity,
    ]),
  ],
  providers: [DirectoryService, PasswordHasher],
  exports: [DirectoryService, PasswordHasher, TypeOrmModule],
})
export class DirectoryModule {}
