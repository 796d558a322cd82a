import { Logger } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { DataSource } from 'typeorm';
import { EventNamespace } from '../jetstream/namespace';
import { OutboxRelay } from './outbox-relay';
import { ensureStream, StreamSpec } from '../jetstream/streams';
import { OutboxEventsEnv } from './outbox-events.env';

/** A stream of the contract (EVENT_STREAMS): its base name and subjects. */
export interface EventStreamBase {
  name: string;
  subjects: readonly string[];
}

/** The stream `base` inside the configured namespace, with the configured replicas and window. */
export function eventStreamSpec(base: EventStreamBase, env: OutboxEventsEnv): StreamSpec {
  const namespace = new EventNamespace(env.EVENTS_NAMESPACE);
  return {
    name: namespace.stream(base.name),
    subjects: base.subjects.map((s) => namespace.subject(s)),
    replicas: env.EVENTS_STREAM_REPLICAS,
    duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS,
  };
}

export interface OutboxRelayHostOptions {
  nc: NatsConnection;
  dataSource: DataSource;
  env: OutboxEventsEnv & { DATABASE_URL: string };
  /** The stream the outbox feeds. */
  stream: EventStreamBase;
  /** Outbox table (createOutboxTable); its NOTIFY channel has the same name. */
  table: string;
  /** Logger context, e.g. `AccountEventsRelay`. */
  name: string;
}

/**
 * Runs an OutboxRelay for one outbox table and stream, configured from
 * OutboxEventsEnv: ensures the stream (creating or updating it), then relays.
 * `startInBackground` keeps trying while NATS is unreachable, so a service boots
 * and takes changes (written to the outbox) during a NATS outage.
 */
export class OutboxRelayHost {
  readonly namespace: EventNamespace;
  readonly spec: StreamSpec;
  private readonly logger: Logger;
  private relay?: OutboxRelay;
  private stopping = false;
  private starting?: Promise<void>;

  constructor(private readonly opts: OutboxRelayHostOptions) {
    this.namespace = new EventNamespace(opts.env.EVENTS_NAMESPACE);
    this.spec = eventStreamSpec(opts.stream, opts.env);
    this.logger = new Logger(opts.name);
  }

  /** Rows published since start. */
  get published(): number {
    return this.relay?.published ?? 0;
  }

  /** Ensures the stream and starts relaying (throws while NATS is unreachable). */
  async start(): Promise<void> {
    if (this.relay) return;
    const { nc, dataSource, env, table } = this.opts;
    await ensureStream(await jetstreamManager(nc), this.spec);
    const relay = new OutboxRelay({
      dataSource,
      js: jetstream(nc),
      namespace: this.namespace,
      table,
      channel: table,
      listenUrl: env.DATABASE_URL,
      batchSize: env.OUTBOX_RELAY_BATCH_SIZE,
      pollIntervalMs: env.OUTBOX_RELAY_POLL_MS,
      publishTimeoutMs: 5000,
      retentionMs: env.OUTBOX_RETENTION_MINUTES * 60_000,
      pruneIntervalMs: 60_000,
      logger: this.logger,
    });
    await relay.start();
    this.relay = relay;
  }

  /** Starts in the background, retrying every second until started or stopped; resolves when started. */
  startInBackground(): Promise<void> {
    this.starting ??= this.retryStart();
    return this.starting;
  }

  /** Deletes published rows past the retention now (the relay does it every minute). */
  prune(): Promise<number> {
    return this.relay?.prune() ?? Promise.resolve(0);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting;
    const r = this.relay;
    this.relay = undefined;
    await r?.stop();
  }

  private async retryStart(): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        await this.start();
        this.logger.log('outbox relay started');
        return;
      } catch (err) {
        if (attempt === 1 || attempt % 30 === 0) this.logger.warn(`outbox relay cannot start yet: ${err}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
