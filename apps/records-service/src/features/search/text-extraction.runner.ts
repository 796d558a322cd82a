import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { SUBJECTS, type FileTextExtractedEvent, type FileType } from '@vault/contracts';
import { Transactions } from '@vault/platform/persistence';
import { eventBase } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { FileBytesService } from '../../capabilities/storage/file-bytes.service';
import { ExtractorPool } from '../../capabilities/text-extraction/extractor-pool';
import { EXTRACTOR_VERSION, type ExtractionLimits } from '../../capabilities/text-extraction/extraction.types';
import { TextJob, TextJobRepository, TextOutcome } from '../../persistence/search-index/text-jobs.repository';
import { SearchEnv } from './search.env';
import { SearchMetrics } from './search.metrics';

const MiB = 1024 * 1024;
const OCR_LANGUAGE: Record<string, string> = { german: 'deu' };

/** Which processes extract: SEARCH_EXTRACTION, or the worker mode's choice. */
export const EXTRACTION_ROLE = Symbol('EXTRACTION_ROLE');

/**
 * The extraction loop: claims due file versions from the queue (file_texts), reads their
 * bytes, has the extractor pool read their text and stores it with its event in one
 * transaction. Woken by the consumer on each new file, else it polls. A version whose bytes
 * were replaced, or whose vault or tenant indexes nothing, is skipped.
 */
@Injectable()
export class TextExtractionRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('TextExtraction');
  private pool?: ExtractorPool;
  private running = false;
  private readonly sleepers = new Set<() => void>();
  private loop?: Promise<void>;

  constructor(
    private readonly env: SearchEnv,
    private readonly jobs: TextJobRepository,
    private readonly bytes: FileBytesService,
    private readonly events: EventPublisher,
    private readonly tx: Transactions,
    private readonly metrics: SearchMetrics,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.SEARCH_EXTRACTION !== 'inline') return;
    this.start();
  }

  /** Starts the loop (worker processes and the reindex command call it). */
  start(): void {
    if (this.running) return;
    const e = this.env;
    const script = e.SEARCH_EXTRACTOR_SCRIPT || process.argv[1];
    if (!e.SEARCH_EXTRACTOR_SCRIPT && !/main\.js$/.test(script ?? '')) {
      // not the service's main.js (a test runner, a REPL): nothing to fork extractors from
      this.log.log(`text extraction off: ${script} is not main.js and SEARCH_EXTRACTOR_SCRIPT is not set`);
      return;
    }
    this.pool = new ExtractorPool({
      size: e.SEARCH_EXTRACTORS,
      script,
      execArgv: e.SEARCH_EXTRACTOR_EXEC_ARGV.split(' ').filter(Boolean),
      heapMb: e.SEARCH_EXTRACTOR_HEAP_MB,
      maxRssMb: e.SEARCH_EXTRACTOR_MAX_RSS_MB,
      timeoutMs: e.SEARCH_EXTRACT_TIMEOUT_MS,
      recycleAfter: 2000,
      recycleAboveRssMb: Math.floor(e.SEARCH_EXTRACTOR_MAX_RSS_MB / 2),
    });
    this.metrics.extractorRss(() => this.pool?.rss() ?? 0);
    this.running = true;
    // Two lanes per extractor process: while one lane's file is read by an extractor, the
    // other claims, loads and decrypts the next file or stores the last one's pages, so the
    // extractors never wait for the database.
    this.loop = Promise.all(Array.from({ length: e.SEARCH_EXTRACTORS * 2 }, () => this.lane())).then(() => undefined);
  }

  /** A new job may be due. */
  wake(): void {
    for (const s of [...this.sleepers]) s();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await this.pool?.close();
  }

  /** One file at a time: claim, read, store; sleeps when nothing is due. */
  private async lane(): Promise<void> {
    const leaseSeconds = Math.ceil((this.env.SEARCH_EXTRACT_TIMEOUT_MS * 2) / 1000);
    while (this.running) {
      let claimed: TextJob[] = [];
      try {
        claimed = await this.jobs.claim(1, leaseSeconds);
        for (const job of claimed) await this.process(job);
      } catch (e) {
        this.log.error(`extraction round failed: ${(e as Error).message}`);
      }
      if (claimed.length === 0 && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, this.env.SEARCH_POLL_MS);
      this.sleepers.add(done);
    });
  }

  private async process(job: TextJob): Promise<void> {
    const started = Date.now();
    const outcome = await this.outcome(job);
    await this.tx.run(async (tx) => {
      await this.jobs.complete(tx, job.id, job.versionId, outcome, outcome.status !== 'skipped');
      if (outcome.status === 'skipped') return;
      const event: FileTextExtractedEvent = {
        ...eventBase(
          { tenantId: job.tenantId, openId: job.uploaderOpenId, username: job.uploader },
          { id: job.vaultId, name: job.vaultName },
        ),
        record: { id: job.recordId, name: job.recordName },
        recordTypeName: job.recordTypeName,
        fileName: job.fileName,
        correlationId: job.correlationId,
        fileType: job.fileType as FileType,
        fileSize: job.size,
        versionId: job.versionId ?? job.id,
        status: outcome.status,
        pages: outcome.pages.length,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      };
      await this.events.publish(tx, SUBJECTS.fileTextExtracted, event);
    });
    this.metrics.extracted(outcome.status, outcome.reason, outcome.pages.length, (Date.now() - started) / 1000);
  }

  private async outcome(job: TextJob): Promise<TextOutcome> {
    const none = (status: TextOutcome['status'], reason: string): TextOutcome => ({
      status,
      reason,
      detectedType: null,
      extractorVersion: EXTRACTOR_VERSION,
      pages: [],
    });
    if (!job.current) return none('skipped', 'replaced');
    if (!this.indexes(job)) return none('skipped', 'indexing_off');
    if (job.attempts > this.env.SEARCH_MAX_ATTEMPTS) return none('failed', 'attempts_exhausted');
    if (job.size > this.env.SEARCH_MAX_FILE_MB * MiB) return none('failed', 'too_large');
    const pool = this.pool;
    if (!pool) return none('failed', 'extractor_crashed');
    const result = await pool.run(await this.read(job.storageKey), OCR_LANGUAGE[job.language] ?? 'eng', this.limits());
    if (!result.ok) return { ...none('failed', result.reason), detectedType: result.detectedType };
    return {
      status: 'extracted',
      reason: null,
      detectedType: result.detectedType,
      extractorVersion: EXTRACTOR_VERSION,
      pages: result.pages,
    };
  }

  private indexes(job: TextJob): boolean {
    const off = this.env.SEARCH_TENANTS_WITHOUT_INDEXING.split(',').map((t) => t.trim());
    return job.indexing && this.env.SEARCH_CONTENT_INDEXING === 'on' && !off.includes(job.tenantId);
  }

  private async read(storageKey: string): Promise<Uint8Array> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.bytes.open(storageKey)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private limits(): ExtractionLimits {
    const e = this.env;
    return {
      maxBytes: e.SEARCH_MAX_FILE_MB * MiB,
      maxPages: e.SEARCH_MAX_PAGES,
      maxPageChars: e.SEARCH_MAX_PAGE_CHARS,
      maxInflatedBytes: e.SEARCH_MAX_INFLATED_MB * MiB,
      ocr: e.SEARCH_OCR === 'on',
      ocrMinChars: e.SEARCH_OCR_MIN_CHARS,
    };
  }
}
