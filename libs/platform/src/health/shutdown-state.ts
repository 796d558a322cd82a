import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { BaseEnv } from '../config/env';

/**
 * Turns the app not-ready as soon as shutdown begins, then waits
 * SHUTDOWN_DELAY_MS so load balancers stop sending traffic before the server
 * stops accepting; in-flight requests finish when the server closes.
 */
@Injectable()
export class ShutdownState implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Shutdown');
  draining = false;

  constructor(private readonly env: BaseEnv) {}

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.draining = true;
    this.logger.log(`shutting down (${signal ?? 'close'}): not ready, draining`);
    if (this.env.SHUTDOWN_DELAY_MS > 0) {
      await new Promise((r) => setTimeout(r, this.env.SHUTDOWN_DELAY_MS));
    }
  }
}
