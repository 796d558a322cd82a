import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENT_STREAMS, VaultEventBase } from '@vault/contracts';
import { DurableConsumerRunner, ensureStream, InvalidMessageError, NATS_CONNECTION } from '@vault/platform';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { EventStreams } from '../events/event-streams';
import { WebhookRepository } from '../persistence/webhook.repository';
import { envelope, eventVaults, VaultEvent, WEBHOOK_EVENT_OF, WEBHOOK_PAYLOADS } from './webhook-envelope';
import { WebhookResources } from './webhook-resources';
import { WebhooksEnv } from './webhooks.env';

export const WEBHOOK_DURABLE = 'webhook_dispatcher';

/**
 * The dispatcher's durable JetStream consumer of the vault events stream: each event
 * becomes one delivery row per matching enabled subscription (its vault's, and the
 * destination vault's for a record transfer), with the CloudEvents body built once;
 * the event is acknowledged after the rows are stored, and a redelivered event adds
 * none (the event id is unique per subscription). Events of no webhook type (licences)
 * are acknowledged without rows.
 */
@Injectable()
export class WebhookFanout {
  private readonly logger = new Logger('WebhookFanout');
  private runner?: DurableConsumerRunner<VaultEvent | null>;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly webhooks: WebhookRepository,
    private readonly resources: WebhookResources,
    private readonly env: WebhooksEnv,
    private readonly streams: EventStreams,
  ) {}

  /** Starts consuming; `onStored` runs after each batch is stored (wakes the dispatcher). */
  async start(onStored: () => void): Promise<void> {
    if (this.runner) return;
    const jsm = await jetstreamManager(this.nc);
    await ensureStream(jsm, this.streams.events);
    const ns = this.streams.namespace;
    const runner = new DurableConsumerRunner<VaultEvent | null>({
      js: jetstream(this.nc),
      jsm,
      consumer: {
        stream: this.streams.events.name,
        durable: WEBHOOK_DURABLE,
        filterSubject: ns.subject('vault.>'),
        ackWaitMs: this.env.WEBHOOK_ACK_WAIT_MS,
        maxDeliver: this.env.WEBHOOK_MAX_DELIVER,
        maxAckPending: 1000,
      },
      deadLetter: {
        stream: {
          name: ns.stream(`${EVENT_STREAMS.vaultEvents.name}_DLQ`),
          subjects: [ns.subject('deadletter.vault.>')],
          replicas: this.env.EVENTS_STREAM_REPLICAS,
          duplicateWindowMs: this.env.EVENTS_DUPLICATE_WINDOW_MS,
        },
        subject: ns.subject(`deadletter.vault.${WEBHOOK_DURABLE}`),
      },
      batchSize: 50,
      retryDelayMs: (delivery) => Math.min(1000 * 2 ** (delivery - 1), 60_000),
      logger: this.logger,
      handler: {
        decode: (msg) => this.decode(msg),
        commit: async (events) => {
          for (const e of events) if (e) await this.fanOut(e);
          onStored();
        },
      },
    });
    await runner.start();
    this.runner = runner;
  }

  async stop(): Promise<void> {
    const r = this.runner;
    this.runner = undefined;
    await r?.stop();
  }

  /** One delivery per matching subscription, in one statement (existing ones are kept). */
  async fanOut(e: VaultEvent): Promise<void> {
    const subscribers = await this.webhooks.subscribers(eventVaults(e), e.type);
    if (subscribers.length === 0) return;
    const body = envelope(e, await this.resources.data(e));
    await this.webhooks.insertDeliveries(
      subscribers.map((w) => ({
        id: randomUUID(),
        webhookId: w.id,
        vaultId: w.vaultId,
        eventId: e.id,
        eventType: e.type,
        streamSeq: String(e.sequence),
        body,
      })),
    );
  }

  private async decode(msg: JsMsg): Promise<VaultEvent | null> {
    const id = msg.headers?.get('Nats-Msg-Id');
    if (!id) throw new InvalidMessageError('no Nats-Msg-Id header (event id)');
    const subject = this.streams.namespace.unprefix(msg.subject);
    const type = WEBHOOK_EVENT_OF[subject];
    if (!type) return null;
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      throw new InvalidMessageError('payload is not JSON');
    }
    const payload = plainToInstance(WEBHOOK_PAYLOADS[subject], body) as VaultEventBase;
    const errors = typeof body === 'object' && body !== null ? await validate(payload) : [true];
    if (errors.length > 0) throw new InvalidMessageError(`payload of ${subject} is invalid`);
    return { id, subject, sequence: msg.seq, type, payload };
  }
}
