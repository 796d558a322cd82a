import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { scrapedGauge } from '@vault/platform/observability';
import { DataSource } from 'typeorm';
import { countOpenUploads } from '../../../persistence/resumable-uploads/open-uploads';

const openUploads = scrapedGauge(
  'resumable_uploads_open',
  'Resumable (tus) uploads open: created, not yet completed, terminated or expired (all instances; read at scrape time).',
  [] as const,
);

/** Exports the open tus uploads from the process that serves them. */
@Injectable()
export class OpenUploadsMetrics implements OnModuleInit, OnModuleDestroy {
  private unwatch?: () => void;

  constructor(private readonly ds: DataSource) {}

  onModuleInit(): void {
    this.unwatch = openUploads.watch(async () => [{ labels: {}, value: await countOpenUploads(this.ds.manager) }]);
  }

  onModuleDestroy(): void {
    this.unwatch?.();
  }
}
