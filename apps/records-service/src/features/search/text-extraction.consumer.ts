import { Controller, INestApplication } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_STREAMS, SUBJECTS } from '@vault/contracts';
import {
  jetStreamConsumer,
  type JetStreamConsumerOptions,
  type JetStreamConsumerSettings,
  type JetStreamEvent,
} from '@vault/platform/events';
import { isUuid } from '../../capabilities/access/access.service';
import { TextJobRepository } from '../../persistence/search-index/text-jobs.repository';
import { SearchEnv } from './search.env';
import { TextExtractionRunner } from './text-extraction.runner';

const DURABLE = 'records-text-extraction';
const STREAM = EVENT_STREAMS.vaultEvents.name;

/** The extraction pipeline's durable consumer of the vault events. */
export const TEXT_EXTRACTION_CONSUMER: JetStreamConsumerOptions = {
  durable: DURABLE,
  stream: STREAM,
  batch: true,
  batchSize: 100,
  deadLetter: { stream: `${STREAM}_DLQ`, subjects: ['deadletter.vault.>'], subject: `deadletter.vault.${DURABLE}` },
};

/** This process's settings for the consumer: `false` when SEARCH_EXTRACTION is `off` (worker processes consume). */
export function textExtractionConsumers(app: INestApplication): Record<string, JetStreamConsumerSettings | false> {
  return { [DURABLE]: app.get(SearchEnv).SEARCH_EXTRACTION === 'inline' && {} };
}

interface FileEventFields {
  record?: { id?: unknown };
  fileName?: unknown;
}

/** Subjects after which a file has new current bytes: an upload, a new version, a restored version. */
const NEW_BYTES = new Set<string>([SUBJECTS.fileUploaded, SUBJECTS.fileVersionCreated, SUBJECTS.fileVersionRestored]);

const str = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * The extraction pipeline's handler on the JetStream transport: a new file, version or
 * restored version queues its text extraction (file_texts, idempotent per file and bytes); a renamed record,
 * a changed caption or file name re-weighs the stored pages. The events are acknowledged
 * once queued; the runner reads the files on its own time (retries and limits are its).
 */
@Controller()
export class TextExtractionConsumer {
  constructor(
    private readonly jobs: TextJobRepository,
    private readonly runner: TextExtractionRunner,
  ) {}

  @EventPattern('vault.>', jetStreamConsumer(TEXT_EXTRACTION_CONSUMER))
  async receive(@Payload() events: JetStreamEvent<FileEventFields>[]): Promise<void> {
    let queued = false;
    const reweigh = new Set<string>();
    for (const e of events) {
      const recordId = e.data?.record?.id;
      if (!str(recordId)) continue;
      if (NEW_BYTES.has(e.subject) && str(e.data.fileName)) {
        queued = (await this.jobs.enqueue(recordId, e.data.fileName)) || queued;
      } else if (e.subject === SUBJECTS.recordUpdated || e.subject === SUBJECTS.fileUpdated) {
        reweigh.add(recordId);
      }
    }
    // the pages are re-weighed from the records' current names and captions, whatever the order of
    // the batch's events; one bad id must not fail the batch's other records
    const renamed = [...reweigh].filter(isUuid);
    if (renamed.length > 0) await this.jobs.retokenize('record', renamed);
    if (queued) this.runner.wake();
  }
}
