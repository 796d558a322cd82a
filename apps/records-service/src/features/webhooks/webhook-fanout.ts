import { randomUUID } from 'node:crypto';
import { Controller, INestApplication } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_STREAMS, type VaultEventBase } from '@vault/contracts';
import {
  jetStreamConsumer,
  type JetStreamConsumerOptions,
  JetStreamContext,
  type JetStreamConsumerSettings,
  type JetStreamEvent,
} from '@vault/platform/events';
import { WebhookEntity } from '../../persistence/webhooks/webhook.entity';
import { WebhookDeliveryRepository } from '../../persistence/webhooks/webhook-delivery.repository';
import { WebhookRepository } from '../../persistence/webhooks/webhook.repository';
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
  batchSize: 200,
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
 * (licences) are acknowledged without rows. Once JetStream has confirmed the acknowledgements,
 * the dispatcher is woken.
 */
@Controller()
export class WebhookFanout {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly resources: WebhookResources,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @EventPattern('vault.>', jetStreamConsumer(WEBHOOK_CONSUMER))
  async receive(@Payload() events: JetStreamEvent<VaultEventBase>[], @Ctx() ctx: JetStreamContext): Promise<void> {
    const typed = events.flatMap((e) => {
      const type = WEBHOOK_EVENT_OF[e.subject];
      return type ? [{ id: e.id, subject: e.subject, sequence: e.sequence, type, payload: e.data }] : [];
    });
    await this.fanOut(typed);
    // Woken once JetStream has confirmed the transport's acknowledgement of the batch: the
    // horizon the dispatcher then reads (the consumer's ack floor) includes these events.
    const storedUpTo = Math.max(0, ...events.map((e) => e.sequence));
    ctx.afterAck(() => this.dispatcher.wake(storedUpTo));
  }

  /**
   * One delivery per matching subscription for the events of a batch: the subscriptions
   * read in one statement, the resources of the events that have any read together (one
   * statement per kind of resource, WebhookResources), every row inserted in one statement
   * (existing ones are kept).
   */
  private async fanOut(events: VaultEvent[]): Promise<void> {
    if (events.length === 0) return;
    const matches = await this.webhooks.subscribersOf(
      events.flatMap((e, i) => eventVaults(e).map((vaultId) => ({ i, vaultId, type: e.type, occurredAt: e.payload.occurredAt }))),
    );
    const to = new Map<number, Pick<WebhookEntity, 'id' | 'vaultId'>[]>();
    for (const { i, webhook } of matches) to.set(i, [...(to.get(i) ?? []), webhook]);
    const sent = [...to];
    const data = await this.resources.dataOf(sent.map(([i]) => events[i]));
    const rows = sent.flatMap(([i, subscribers], k) => {
      const e = events[i];
      const body = envelope(e, data[k]);
      return subscribers.map((w) => ({
        id: randomUUID(),
        webhookId: w.id,
        vaultId: w.vaultId,
        eventId: e.id,
        eventType: e.type,
        streamSeq: String(e.sequence),
        body,
      }));
    });
    await this.deliveries.insertDeliveries(rows);
  }
}
