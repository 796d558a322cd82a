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
import { WebhookRepository } from '../../persistence/webhooks/webhook.repository';
import { FanoutHorizon, WEBHOOK_DURABLE } from './fanout-horizon';
import { WebhookDispatcher } from './webhook-dispatcher';
import { envelope, eventVaults, VaultEvent, WEBHOOK_EVENT_OF, WEBHOOK_PAYLOADS } from './webhook-envelope';
import { WebhookResources } from './webhook-resources';
import { WebhooksEnv } from './webhooks.env';

const DURABLE = WEBHOOK_DURABLE;
/** Vaults remembered as having had a subscriber for their last event, at most. */
const SUBSCRIBED_VAULTS_MAX = 10_000;
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
 * (licences) are acknowledged without rows. A batch that follows on from the events stored
 * before it (FanoutHorizon) has the runs it can start claimed by its own insert and sent at
 * once (WebhookDispatcher.store); the dispatcher is woken for the rest, at once, or for a
 * batch above a gap once JetStream has confirmed the acknowledgements.
 */
@Controller()
export class WebhookFanout {
  /** Vaults whose last event had a subscriber (insertion order: the least recent first). */
  private readonly subscribed = new Set<string>();

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly resources: WebhookResources,
    private readonly dispatcher: WebhookDispatcher,
    private readonly horizon: FanoutHorizon,
  ) {}

  @EventPattern('vault.>', jetStreamConsumer(WEBHOOK_CONSUMER))
  async receive(@Payload() events: JetStreamEvent<VaultEventBase>[], @Ctx() ctx: JetStreamContext): Promise<void> {
    const typed = events.flatMap((e) => {
      const type = WEBHOOK_EVENT_OF[e.subject];
      return type ? [{ id: e.id, subject: e.subject, sequence: e.sequence, type, payload: e.data }] : [];
    });
    const sequences = events.map((e) => e.sequence);
    const storedUpTo = Math.max(0, ...sequences);
    const left = await this.fanOut(typed, this.horizon.reachedWith(sequences));
    const joined = this.horizon.stored(sequences);
    // A batch that follows on from the horizon raised it: its deliveries not sent already (their
    // vault's earlier ones still pending, no free slot, a redelivered event) and those of batches
    // stored above a gap it closed can be claimed now. Otherwise the dispatcher is woken once
    // JetStream has confirmed the transport's acknowledgement of the batch, when the consumer's
    // ack floor it then reads includes these events.
    if (this.horizon.known < storedUpTo) ctx.afterAck(() => this.dispatcher.wake(storedUpTo));
    else if (left > 0 || joined) this.dispatcher.wake(storedUpTo);
  }

  /**
   * One delivery per matching subscription for the events of a batch: the subscriptions
   * read in one statement, the resources of the events that have any read together (one
   * statement per kind of resource, WebhookResources), every row stored in one statement
   * that also claims the runs that may be sent at once (events up to `upTo`), existing rows
   * kept. The resources of events in vaults whose last event had a subscriber are read while
   * the subscriptions are (most vaults with a subscription keep it); those of the other events
   * with subscribers after. Answers how many rows were stored without being claimed.
   */
  private async fanOut(events: VaultEvent[], upTo: number): Promise<number> {
    if (events.length === 0) return 0;
    const likely = events.flatMap((e, i) => (eventVaults(e).some((v) => this.subscribed.has(v)) ? [i] : []));
    const [matches, early] = await Promise.all([
      this.webhooks.subscribersOf(
        events.flatMap((e, i) =>
          eventVaults(e).map((vaultId) => ({ i, vaultId, type: e.type, occurredAt: e.payload.occurredAt })),
        ),
      ),
      this.resources.dataOf(likely.map((i) => events[i])),
    ]);
    const to = new Map<number, Pick<WebhookEntity, 'id' | 'vaultId'>[]>();
    for (const { i, webhook } of matches) to.set(i, [...(to.get(i) ?? []), webhook]);
    this.remember(events, to);
    const data = new Map(likely.map((i, k) => [i, early[k]]));
    const late = [...to.keys()].filter((i) => !data.has(i));
    (await this.resources.dataOf(late.map((i) => events[i]))).forEach((d, k) => data.set(late[k], d));
    const rows = [...to].flatMap(([i, subscribers]) => {
      const e = events[i];
      const body = envelope(e, data.get(i) as object);
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
    return this.dispatcher.store(rows, upTo);
  }

  /** Which vaults' events had a subscriber this time (the oldest remembered forgotten first). */
  private remember(events: VaultEvent[], to: Map<number, unknown>): void {
    events.forEach((e, i) => {
      for (const v of eventVaults(e)) {
        this.subscribed.delete(v);
        if (to.has(i)) this.subscribed.add(v);
      }
    });
    for (const v of this.subscribed) {
      if (this.subscribed.size <= SUBSCRIBED_VAULTS_MAX) break;
      this.subscribed.delete(v);
    }
  }
}
