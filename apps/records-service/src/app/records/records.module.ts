import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { EventsModule } from '../events/events.module';
import { FilesModule } from '../files/files.module';
import { PlansModule } from '../plans/plans.module';
import { RecordsController } from './records.controller';
import { RecordsService } from './records.service';

@Module({
  imports: [AccessModule, CatalogueModule, EventsModule, FilesModule, PlansModule],
  controllers: [RecordsController],
  providers: [RecordsService],
  exports: [RecordsService],
})
export class RecordsModule {}
