import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { DirectoryService } from './directory.service';
import { PasswordHasher } from './password-hasher';

/** Tenants, client applications and organisation users, with their credential hashing. */
@Module({
  imports: [PersistenceModule],
  providers: [DirectoryService, PasswordHasher],
  exports: [DirectoryService, PasswordHasher],
})
export class DirectoryModule {}
