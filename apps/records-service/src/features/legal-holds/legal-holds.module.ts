import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { RetentionModule } from '../../capabilities/retention/retention.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { LegalHoldsController } from './legal-holds.controller';
import { LegalHoldsService } from './legal-holds.service';

/** Legal holds and the retention answer of vaults, records and files. */
@Module({
  imports: [AccessModule, PersistenceModule, RetentionModule],
  controllers: [LegalHoldsController],
  providers: [LegalHoldsService],
})
export class LegalHoldsModule {}
