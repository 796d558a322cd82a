import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { deliveryBacklog } from '../../persistence/webhooks/webhook-delivery-backlog';
import { WebhookDispatcher } from './webhook-dispatcher';
import { watchDeliveries } from './webhook-metrics';
import { WebhooksEnv } from './webhooks.env';

/**
 * Sends due webhook deliveries in this process when WEBHOOK_DISPATCHER is `inline`
 * (the fan-out consumer runs on the JetStream transport, app/jetstream-consumers.ts),
 * and lets the attempts in flight finish on shutdown.
 */
@Injectable()
export class WebhooksRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private unwatch?: () => void;

  constructor(
    private readonly env: WebhooksEnv,
    private readonly dispatcher: WebhookDispatcher,
    private readonly ds: DataSource,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.WEBHOOK_DISPATCHER !== 'inline') return;
    this.dispatcher.start();
    // The delivery backlog is exported by the processes that deliver.
    this.unwatch = watchDeliveries(() => deliveryBacklog(this.ds.manager));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unwatch?.();
    await this.dispatcher.stop();
  }
}
