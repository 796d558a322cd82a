import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AccountDeletionController } from './account-deletion.controller';
import { AccountDeletionService } from './account-deletion.service';

/** Deletion of an account by its holder (RevocationService of the platform ends the token). */
@Module({
  imports: [PersistenceModule, OwnAccountModule],
  controllers: [AccountDeletionController],
  providers: [AccountDeletionService],
})
export class AccountDeletionModule {}
