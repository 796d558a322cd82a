import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogueService } from './catalogue.service';
import { RecordSubtypeEntity, RecordTypeEntity } from './record-type.entity';

@Module({
  imports: [TypeOrmModule.forFeature([RecordTypeEntity, RecordSubtypeEntity])],
  providers: [CatalogueService],
  exports: [CatalogueService],
})
export class CatalogueModule {}
