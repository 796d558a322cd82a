import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhooksEnv } from './webhooks.env';

/**
 * Sends due webhook deliveries in this process when WEBHOOK_DISPATCHER is `inline`
 * (the fan-out consumer runs on the JetStream transport, app/jetstream-consumers.ts),
 * and lets the attempts in flight finish on shutdown.
 */
@Injectable()
export class WebhooksRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly env: WebhooksEnv,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.WEBHOOK_DISPATCHER === 'inline') this.dispatcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatcher.stop();
  }
}
