import { Module } from '@nestjs/common';
import { PersistenceModule } from '../../persistence/persistence.module';
import { CatalogueService } from './catalogue.service';

/** The record type catalogue, read once and kept in memory. */
@Module({
  imports: [PersistenceModule],
  providers: [CatalogueService],
  exports: [CatalogueService],
})
export class CatalogueModule {}
