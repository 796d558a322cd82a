import { Controller, INestApplication } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  CollaboratorChangedEvent,
  EVENT_STREAMS,
  RecordChangedEvent,
  RecordTransferredEvent,
  VAULT_CLOUD_EVENT_PAYLOADS,
  VAULT_CLOUD_EVENT_TYPE_OF,
  vaultCloudEvent,
  type VaultEventBase,
} from '@vault/contracts';
import {
  jetStreamConsumer,
  type JetStreamConsumerOptions,
  type JetStreamConsumerSettings,
  type JetStreamEvent,
} from '@vault/platform/events';
import { ChangeFeedRepository, FeedRow } from '../../persistence/change-feed/change-feed.repository';
import { exportFeedLag, observeFeedLag } from './change-feed-lag';
import { ChangeFeedEnv } from './change-feed.env';
import { FeedSignal } from './feed-signal';

const DURABLE = 'records-change-feed';
const STREAM = EVENT_STREAMS.vaultEvents.name;

/** The change feed's durable consumer of the vault events. */
export const CHANGE_FEED_CONSUMER: JetStreamConsumerOptions = {
  durable: DURABLE,
  stream: STREAM,
  payload: VAULT_CLOUD_EVENT_PAYLOADS,
  batch: true,
  batchSize: 100,
  deadLetter: { stream: `${STREAM}_DLQ`, subjects: ['deadletter.vault.>'], subject: `deadletter.vault.${DURABLE}` },
};

/**
 * The JetStream transport's settings for the change-feed consumer of this process:
 * ChangeFeedEnv's, or `false` when CHANGE_FEED_WRITER is `off`.
 */
export function changeFeedConsumers(app: INestApplication): Record<string, JetStreamConsumerSettings | false> {
  const env = app.get(ChangeFeedEnv);
  return { [DURABLE]: env.CHANGE_FEED_WRITER === 'inline' && { ackWaitMs: env.CHANGE_FEED_ACK_WAIT_MS } };
}

/** The record an event is about, if any (what a record guest may see). */
function recordOf(p: VaultEventBase): string | null {
  if (p instanceof RecordChangedEvent) return p.record.id;
  if (p instanceof CollaboratorChangedEvent) return p.record?.id ?? null;
  return null;
}

/** The feed rows of one event: one per vault it belongs to (a record transfer: both). */
export function toFeedRows(e: JetStreamEvent<VaultEventBase>): FeedRow[] {
  const type = VAULT_CLOUD_EVENT_TYPE_OF[e.subject];
  if (!type) return [];
  const p = e.data;
  const vaults = p instanceof RecordTransferredEvent ? [p.vault.id, p.destinationVault.id] : [p.vault.id];
  const envelope = vaultCloudEvent(e.id, type, p.vault.id, p.occurredAt, p);
  return [...new Set(vaults)].map((vaultId) => ({
    eventId: e.id,
    vaultId,
    recordId: recordOf(p),
    type,
    envelope,
    occurredAt: p.occurredAt,
  }));
}

/**
 * The change-feed writer, a handler on the JetStream transport: each batch becomes its
 * feed rows, inserted in stream order in one statement (a redelivered event inserts
 * nothing); the transport acknowledges the events once the insert committed, and the
 * open streams in this process of the vaults it wrote are woken (FeedSignal; the other
 * instances by the insert's NOTIFY).
 */
@Controller()
export class ChangeFeedWriter {
  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly signal: FeedSignal,
  ) {
    exportFeedLag();
  }

  @EventPattern('vault.>', jetStreamConsumer(CHANGE_FEED_CONSUMER))
  async write(@Payload() events: JetStreamEvent<VaultEventBase>[]): Promise<void> {
    const rows = events.flatMap(toFeedRows);
    this.signal.written(await this.feed.insertNew(rows, this.signal.instanceId));
    observeFeedLag(rows);
  }
}
