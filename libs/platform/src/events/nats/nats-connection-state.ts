import { Logger } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Whether the NATS connection is up right now. The client reconnects forever and
 * buffers while it does, so `isClosed()` stays false during an outage: this
 * follows the connection's status events instead (down from `disconnect` until
 * `reconnect`, and for good after `close`).
 */
export class NatsConnectionState {
  private readonly logger = new Logger('Nats');
  private up = true;

  constructor(private readonly nc: NatsConnection) {
    void this.follow();
  }

  get connected(): boolean {
    return this.up && !this.nc.isClosed() && !this.nc.isDraining();
  }

  private async follow(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') {
        if (this.up) this.logger.warn(`disconnected from ${s.server}; reconnecting`);
        this.up = false;
      } else if (s.type === 'reconnect') {
        this.logger.log(`reconnected to ${s.server}`);
        this.up = true;
      } else if (s.type === 'close') {
        this.up = false;
      }
    }
  }
}
