import { Module } from '@nestjs/common';
import { AccessModule } from '../../capabilities/access/access.module';
import { CatalogueModule } from '../../capabilities/catalogue/catalogue.module';
import { EncryptionModule } from '../../capabilities/encryption/encryption.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { RetentionModule } from '../../capabilities/retention/retention.module';
import { RecordsController } from './records.controller';
import { RecordSearchService } from './record-search.service';
import { RecordsService } from './records.service';

@Module({
  imports: [AccessModule, CatalogueModule, EncryptionModule, EventsModule, PersistenceModule, PlansModule, RetentionModule],
  controllers: [RecordsController],
  providers: [RecordsService, RecordSearchService],
})
export class RecordsModule {}
