import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountEntity } from './account.entity';
import { AccountEvents } from './account-events';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';

/** Accounts: lookups of the caller's own account, update, username check. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity])],
  controllers: [AccountsController],
  providers: [AccountsService, AccountEvents],
  exports: [AccountsService],
})
export class AccountsModule {}
