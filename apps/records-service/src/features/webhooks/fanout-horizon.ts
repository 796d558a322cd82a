import { Inject, Injectable } from '@nestjs/common';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@vault/platform/events';
import { EventStreams } from '../../capabilities/events/event-streams';
import { WebhooksEnv } from './webhooks.env';

/** The durable consumer of the webhook fan-out. */
export const WEBHOOK_DURABLE = 'webhook_dispatcher';

/**
 * How far the fan-out has stored every event's deliveries: the stream sequence of the
 * `webhook_dispatcher` consumer's ack floor. The fan-out acknowledges an event only
 * after its deliveries committed, so every event up to the floor has its deliveries
 * stored; above it an earlier event may still be missing (handed to a process that died
 * before committing, to another instance still storing it, or handed back after a
 * failure), and a later event of the same vault must wait for it (docs/webhooks.md,
 * Order). While JetStream cannot be asked, the last floor read is used.
 */
@Injectable()
export class FanoutHorizon {
  private readonly stream: string;
  private jsm?: JetStreamManager;
  private floor = 0;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    env: WebhooksEnv,
  ) {
    this.stream = new EventStreams(env).events.name;
  }

  /** The ack floor's stream sequence last read (the floor only rises: events up to it are stored). */
  get known(): number {
    return this.floor;
  }

  /** The ack floor's stream sequence now (or the last one read). */
  async current(): Promise<number> {
    try {
      this.jsm ??= await jetstreamManager(this.nc);
      this.floor = (await this.jsm.consumers.info(this.stream, WEBHOOK_DURABLE)).ack_floor.stream_seq;
    } catch {
      // NATS or the consumer is unreachable: deliveries up to the last known floor go on.
    }
    return this.floor;
  }
}
