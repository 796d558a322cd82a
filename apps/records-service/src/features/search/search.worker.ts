import { INestApplication, INestApplicationContext, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { runWorker, WorkerOptions, workerModule } from '@vault/platform/bootstrap';
import { connectJetStream, NATS_CONNECTION, type JetStreamServer } from '@vault/platform/events';
import { SingleBar } from 'cli-progress';
import { EventStreams } from '../../capabilities/events/event-streams';
import { ENTITIES } from '../../persistence/entities';
import { SearchEnv } from './search.env';
import { SearchModule } from './search.module';
import { SearchReindex } from './search-reindex';
import { TEXT_EXTRACTION_CONSUMER } from './text-extraction.consumer';
import { TextExtractionRunner } from './text-extraction.runner';

/** Process modes: `node main.js text-extraction` (the pipeline) and `node main.js search-reindex` (the command). */
export const SEARCH_MODES = ['text-extraction', 'search-reindex'] as const;
export const isSearchMode = (arg: string | undefined): arg is (typeof SEARCH_MODES)[number] =>
  (SEARCH_MODES as readonly string[]).includes(arg ?? '');

const options = (name: string, connect?: WorkerOptions['connect']): WorkerOptions => ({
  name,
  env: SearchEnv,
  database: { entities: ENTITIES, migrations: [] },
  imports: [SearchModule],
  connect,
});

/** The consumer of a text-extraction worker process, whatever SEARCH_EXTRACTION says. */
function connectConsumer(app: INestApplication): Promise<JetStreamServer> {
  const env = app.get(SearchEnv);
  const streams = new EventStreams(env);
  app.get(TextExtractionRunner).start();
  return connectJetStream(app, {
    connection: app.get(NATS_CONNECTION),
    namespace: streams.namespace,
    streams: [streams.events],
    deadLetterStreams: { replicas: env.EVENTS_STREAM_REPLICAS, duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS },
    consumers: { [TEXT_EXTRACTION_CONSUMER.durable]: {} },
    logger: new Logger('JetStream'),
  });
}

/** Runs a search process mode until it ends (reindex) or until SIGTERM/SIGINT (extraction). */
export function runSearchMode(mode: (typeof SEARCH_MODES)[number]): Promise<void> {
  if (mode === 'text-extraction') return runWorker(options('records-text-extraction', connectConsumer));
  return runReindex();
}

/** Queues what the current extractors have not read, reads it with a progress bar, exits. */
async function runReindex(): Promise<void> {
  const app: INestApplicationContext = await NestFactory.createApplicationContext(
    workerModule(options('records-search-reindex')),
    { logger: ['error', 'warn'] },
  );
  const reindex = app.get(SearchReindex);
  await reindex.queue();
  app.get(TextExtractionRunner).start();
  // outside a terminal (a Job's log, a redirect) a line every 5 s instead of a redrawn bar
  const bar = new SingleBar({
    format: 'reindex [{bar}] {value}/{total} files | {failed} unsearchable | {eta}s left',
    noTTYOutput: true,
    notTTYSchedule: 5000,
  });
  let p = await reindex.progress();
  bar.start(p.total, p.done, { failed: p.failed });
  while (p.done < p.total) {
    await new Promise((r) => setTimeout(r, 500));
    p = await reindex.progress();
    bar.setTotal(p.total);
    bar.update(p.done, { failed: p.failed });
  }
  bar.stop();
  await app.close();
}
