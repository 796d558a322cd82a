import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { OutboxRelayService } from '../../capabilities/events/outbox-relay.service';

export const ACTIVITY_LOG_ROLES = Symbol('ACTIVITY_LOG_ROLES');

/** Which parts of the pipeline this process runs (the writer: see activity-log.transport.ts). */
export interface ActivityLogRoles {
  relay: boolean;
  writer: boolean;
}

/**
 * Starts the outbox relay once the app is up (retrying in the background while
 * NATS is unreachable, so the HTTP side is not held back) and stops it before the
 * NATS connection drains on shutdown.
 */
@Injectable()
export class ActivityLogRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ActivityLog');
  private stopping = false;
  private starting?: Promise<void>;

  constructor(
    @Inject(ACTIVITY_LOG_ROLES) private readonly roles: ActivityLogRoles,
    private readonly relay: OutboxRelayService,
  ) {}

  onApplicationBootstrap(): void {
    this.starting = this.startAll();
  }

  /** Resolves once the relay (when enabled) has started. */
  ready(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.relay.stop();
  }

  private async startAll(): Promise<void> {
    if (!this.roles.relay) return;
    for (let attempt = 1; !this.stopping; attempt++) {
      try {
        await this.relay.start();
        this.logger.log('outbox relay started');
        return;
      } catch (err) {
        if (attempt === 1 || attempt % 30 === 0) this.logger.warn(`outbox relay cannot start yet: ${err}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }
}
