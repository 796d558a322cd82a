import { Injectable } from '@nestjs/common';
import { EXTRACTOR_VERSION } from '../../capabilities/text-extraction/extraction.types';
import { ReindexProgress, TextReindexRepository } from '../../persistence/search-index/text-reindex.repository';
import { SearchMetrics } from './search.metrics';
import { TextExtractionRunner } from './text-extraction.runner';

const BATCH = 500;
const NIL = '00000000-0000-0000-0000-000000000000';

/**
 * Reindex after a change of extractors (`npm run search:reindex`): queues the files that
 * have no text yet and the texts read by an older extractor, batch by batch (bounded
 * memory; a stopped run resumes, nothing done is done again), then the runners read them.
 */
@Injectable()
export class SearchReindex {
  constructor(
    private readonly repo: TextReindexRepository,
    private readonly runner: TextExtractionRunner,
    private readonly metrics: SearchMetrics,
  ) {}

  async queue(): Promise<void> {
    for (let after: string | null = NIL; after; ) after = await this.repo.backfill(after, BATCH);
    while ((await this.repo.requeueOlder(EXTRACTOR_VERSION, BATCH)) > 0) this.runner.wake();
    this.runner.wake();
  }

  async progress(): Promise<ReindexProgress> {
    const p = await this.repo.progress(EXTRACTOR_VERSION);
    this.metrics.reindexRemaining(p.total - p.done);
    return p;
  }
}
