import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhookFanout } from './webhook-fanout';
import { WebhooksEnv } from './webhooks.env';

/**
 * Runs webhook delivery in this process when WEBHOOK_DISPATCHER is `inline`: the
 * consumer of the event stream starts in the background (retrying while NATS is
 * unreachable, the HTTP side is not held back) and the dispatcher sends what is due.
 * Both stop before the NATS connection drains on shutdown.
 */
@Injectable()
export class WebhooksRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private stopping = false;
  private starting?: Promise<void>;

  constructor(
    private readonly env: WebhooksEnv,
    private readonly fanout: WebhookFanout,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.WEBHOOK_DISPATCHER !== 'inline') return;
    this.dispatcher.start();
    this.starting = this.startConsumer();
  }

  /** Resolves once the consumer has started. */
  ready(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.fanout.stop();
    await this.dispatcher.stop();
  }

  private async startConsumer(): Promise<void> {
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        await this.fanout.start(() => this.dispatcher.wake());
        this.logger.log('webhook dispatcher started');
        return;
      } catch (err) {
        if (attempt === 1 || attempt % 30 === 0) this.logger.warn(`webhook dispatcher cannot start yet: ${err}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
