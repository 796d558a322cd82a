import { randomUUID } from 'node:crypto';
import { Controller, INestApplication } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_STREAMS, type VaultEventBase } from '@vault/contracts';
import {
  jetStreamConsumer,
  type JetStreamConsumerOptions,
  type JetStreamConsumerSettings,
  type JetStreamEvent,
} from '@vault/platform';
import { WebhookRepository } from '../persistence/webhook.repository';
import { WEBHOOK_DURABLE } from './fanout-horizon';
import { WebhookDispatcher } from './webhook-dispatcher';
import { envelope, eventVaults, VaultEvent, WEBHOOK_EVENT_OF, WEBHOOK_PAYLOADS } from './webhook-envelope';
import { WebhookResources } from './webhook-resources';
import { WebhooksEnv } from './webhooks.env';

const DURABLE = WEBHOOK_DURABLE;
const STREAM = EVENT_STREAMS.vaultEvents.name;

/** The dispatcher's durable consumer of the vault events (settings from WebhooksEnv, see webhookConsumers). */
export const WEBHOOK_CONSUMER: JetStreamConsumerOptions = {
  durable: DURABLE,
  stream: STREAM,
  payload: WEBHOOK_PAYLOADS,
  batch: true,
  batchSize: 50,
  deadLetter: { stream: `${STREAM}_DLQ`, subjects: ['deadletter.vault.>'], subject: `deadletter.vault.${DURABLE}` },
};

/**
 * The JetStream transport's settings for the webhook consumer of this process:
 * WebhooksEnv's, or `false` when WEBHOOK_DISPATCHER is `off`.
 */
export function webhookConsumers(app: INestApplication): Record<string, JetStreamConsumerSettings | false> {
  const env = app.get(WebhooksEnv);
  return {
    [DURABLE]: env.WEBHOOK_DISPATCHER === 'inline' && {
      ackWaitMs: env.WEBHOOK_ACK_WAIT_MS,
      maxDeliver: env.WEBHOOK_MAX_DELIVER,
    },
  };
}

/**
 * The webhook fan-out, a handler on the JetStream transport: each event of a batch
 * becomes one delivery row per matching enabled subscription (its vault's, and the
 * destination vault's for a record transfer), with the CloudEvents body built once.
 * The transport acknowledges the events once the rows are stored; a redelivered event
 * adds none (the event id is unique per subscription). Events of no webhook type
 * (licences) are acknowledged without rows. Then the dispatcher is woken.
 */
@Controller()
export class WebhookFanout {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly resources: WebhookResources,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @EventPattern('vault.>', jetStreamConsumer(WEBHOOK_CONSUMER))
  async receive(@Payload() events: JetStreamEvent<VaultEventBase>[]): Promise<void> {
    for (const e of events) {
      const type = WEBHOOK_EVENT_OF[e.subject];
      if (type) await this.fanOut({ id: e.id, subject: e.subject, sequence: e.sequence, type, payload: e.data });
    }
    this.dispatcher.wake(Math.max(0, ...events.map((e) => e.sequence)));
  }

  /** One delivery per matching subscription, in one statement (existing ones are kept). */
  private async fanOut(e: VaultEvent): Promise<void> {
    const subscribers = await this.webhooks.subscribers(eventVaults(e), e.type, new Date(e.payload.occurredAt));
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
}
