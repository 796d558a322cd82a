import { Injectable } from '@nestjs/common';
import { metricsRegistry } from '@vault/platform/observability';
import { Counter, Gauge, Histogram } from 'prom-client';

const files = new Counter({
  name: 'search_text_extractions_total',
  help: 'File versions whose text extraction ended, by status and reason.',
  labelNames: ['status', 'reason'] as const,
  registers: [metricsRegistry],
});
const pages = new Counter({
  name: 'search_text_pages_total',
  help: 'Pages (or sections) of text extracted and indexed.',
  registers: [metricsRegistry],
});
const seconds = new Histogram({
  name: 'search_text_extraction_seconds',
  help: 'Time to read, extract and index one file version.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [metricsRegistry],
});
const reindex = new Gauge({
  name: 'search_reindex_remaining',
  help: 'File versions still to be read by the current extractors (npm run search:reindex).',
  registers: [metricsRegistry],
});
let rssOf: () => number = () => 0;
new Gauge({
  name: 'search_extractor_rss_bytes',
  help: 'Resident memory of the extractor processes of this process.',
  registers: [metricsRegistry],
  collect() {
    this.set(rssOf() * 1024 * 1024);
  },
});

/** Metrics of the extraction pipeline and the reindex (docs/search.md, Operations). */
@Injectable()
export class SearchMetrics {
  extracted(status: string, reason: string | null, pageCount: number, elapsedSeconds: number): void {
    files.inc({ status, reason: reason ?? '' });
    pages.inc(pageCount);
    seconds.observe(elapsedSeconds);
  }

  extractorRss(read: () => number): void {
    rssOf = read;
  }

  reindexRemaining(n: number): void {
    reindex.set(n);
  }
}
