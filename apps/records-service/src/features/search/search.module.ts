import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { AccessModule } from '../../capabilities/access/access.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { StorageModule } from '../../capabilities/storage/storage.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { SearchRepository } from '../../persistence/search-index/search.repository';
import { TextJobRepository } from '../../persistence/search-index/text-jobs.repository';
import { TextReindexRepository } from '../../persistence/search-index/text-reindex.repository';
import { SearchController } from './search.controller';
import { SearchEnv } from './search.env';
import { SearchMetrics } from './search.metrics';
import { SearchService } from './search.service';
import { TextExtractionConsumer } from './text-extraction.consumer';
import { TextExtractionRunner } from './text-extraction.runner';
import { SearchReindex } from './search-reindex';

/**
 * Content search (docs/search.md): the routes, the extraction pipeline's consumer and
 * runner (SEARCH_EXTRACTION=inline, or `node main.js text-extraction` processes).
 */
@Module({
  imports: [AccessModule, PersistenceModule, StorageModule, EventsModule],
  controllers: [SearchController, TextExtractionConsumer],
  providers: [
    { provide: SearchEnv, useFactory: () => loadEnv(SearchEnv) },
    SearchRepository,
    TextJobRepository,
    TextReindexRepository,
    SearchMetrics,
    SearchService,
    TextExtractionRunner,
    SearchReindex,
  ],
  exports: [SearchEnv, TextExtractionRunner, SearchReindex],
})
export class SearchModule {}
