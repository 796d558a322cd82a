import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';

/** Accounts: lookups of the caller's own account, update, username check. */
@Module({
  imports: [PersistenceModule, OwnAccountModule],
  controllers: [AccountsController],
  providers: [AccountsService],
})
export class AccountsModule {}
