import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountEntity } from './account.entity';
import { AccountEventsModule } from '../account-events/account-events.module';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';

/** Accounts: lookups of the caller's own account, update, username check. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity]), AccountEventsModule],
  controllers: [AccountsController],
  providers: [AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
