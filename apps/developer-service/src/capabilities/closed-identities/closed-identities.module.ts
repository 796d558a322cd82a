import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccountDeletionsHandler } from './account-deletions.handler';
import { ClosedIdentitiesService } from './closed-identities.service';

/** Identities of deleted accounts (account events of the user module): no token is issued to them. */
@Module({
  imports: [PersistenceModule],
  controllers: [AccountDeletionsHandler],
  providers: [ClosedIdentitiesService],
  exports: [ClosedIdentitiesService],
})
export class ClosedIdentitiesModule {}
