import { Inject, Injectable, Logger } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ensureStream, NATS_CONNECTION, OutboxRelay } from '@vault/platform/events';
import { DataSource } from 'typeorm';
import { EventStreams, OUTBOX_CHANNEL, OUTBOX_TABLE } from './event-streams';
import { EventsEnv } from './events.env';

/** Publishes the records-service outbox to the vault events stream. */
@Injectable()
export class OutboxRelayService {
  private readonly logger = new Logger('OutboxRelay');
  private relay?: OutboxRelay;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly dataSource: DataSource,
    private readonly env: EventsEnv,
    private readonly streams: EventStreams,
  ) {}

  get published(): number {
    return this.relay?.published ?? 0;
  }

  /** Ensures the stream exists (creating or updating it) and starts relaying. */
  async start(onPublished?: (ids: string[]) => Promise<void> | void): Promise<void> {
    if (this.relay) return;
    await ensureStream(await jetstreamManager(this.nc), this.streams.events);
    const relay = new OutboxRelay({
      dataSource: this.dataSource,
      js: jetstream(this.nc),
      namespace: this.streams.namespace,
      table: OUTBOX_TABLE,
      channel: OUTBOX_CHANNEL,
      listenUrl: this.env.DATABASE_URL,
      batchSize: this.env.OUTBOX_RELAY_BATCH_SIZE,
      pollIntervalMs: this.env.OUTBOX_RELAY_POLL_MS,
      publishTimeoutMs: 5000,
      retentionMs: this.env.OUTBOX_RETENTION_MINUTES * 60_000,
      pruneIntervalMs: 60_000,
      logger: this.logger,
      onPublished,
    });
    await relay.start();
    this.relay = relay;
  }

  /** Deletes published outbox rows past the retention now (normally done every minute). */
  prune(): Promise<number> {
    return this.relay?.prune() ?? Promise.resolve(0);
  }

  async stop(): Promise<void> {
    const r = this.relay;
    this.relay = undefined;
    await r?.stop();
  }
}
