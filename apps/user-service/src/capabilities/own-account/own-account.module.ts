import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccountEventsModule } from '../account-events/account-events.module';
import { OwnAccountService } from './own-account.service';

/** The caller's own account: scoped lookups, and its creation, changes and deletion with their events. */
@Module({
  imports: [PersistenceModule, AccountEventsModule],
  providers: [OwnAccountService],
  exports: [OwnAccountService],
})
export class OwnAccountModule {}
