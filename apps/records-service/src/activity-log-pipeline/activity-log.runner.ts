import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { OutboxRelayService } from '../events/outbox-relay.service';
import { ActivityLogWriter } from './activity-log.writer';

export const ACTIVITY_LOG_ROLES = Symbol('ACTIVITY_LOG_ROLES');

/** Which parts of the pipeline this process runs. */
export interface ActivityLogRoles {
  relay: boolean;
  writer: boolean;
}

/**
 * Starts the relay and/or the writer once the app is up (retrying in the
 * background while NATS is unreachable, so the HTTP side is not held back) and
 * stops them before the NATS connection drains on shutdown.
 */
@Injectable()
export class ActivityLogRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ActivityLog');
  private stopping = false;
  private starting?: Promise<void>;

  constructor(
    @Inject(ACTIVITY_LOG_ROLES) private readonly roles: ActivityLogRoles,
    private readonly relay: OutboxRelayService,
    private readonly writer: ActivityLogWriter,
  ) {}

  onApplicationBootstrap(): void {
    this.starting = this.startAll();
  }

  /** Resolves once every enabled part has started. */
  ready(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.starting;
    await this.writer.stop();
    await this.relay.stop();
  }

  private async startAll(): Promise<void> {
    const parts: [boolean, string, () => Promise<void>][] = [
      [this.roles.relay, 'outbox relay', () => this.relay.start()],
      [this.roles.writer, 'activity log writer', () => this.writer.start()],
    ];
    for (const [enabled, name, start] of parts) {
      if (!enabled) continue;
      for (let attempt = 1; !this.stopping; attempt++) {
        try {
          await start();
          this.logger.log(`${name} started`);
          break;
        } catch (err) {
          if (attempt === 1 || attempt % 30 === 0) this.logger.warn(`${name} cannot start yet: ${err}`);
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    }
  }
}
