import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENT_STREAMS } from '@vault/contracts';
import { NATS_CONNECTION, OutboxRelayHost } from '@vault/platform/events';
import { DataSource } from 'typeorm';
import { UserEnv } from '../../config/user.env';
import { ACCOUNT_OUTBOX_TABLE } from './account-outbox';

/**
 * Relays the account outbox to the ACCOUNT_EVENTS stream from this process. It starts
 * once the app is up and keeps trying while NATS is unreachable (changes still
 * commit, their events wait in the outbox); it stops before the NATS connection drains.
 */
@Injectable()
export class AccountEventsRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly host: OutboxRelayHost;

  constructor(@Inject(NATS_CONNECTION) nc: NatsConnection, @InjectDataSource() dataSource: DataSource, env: UserEnv) {
    this.host = new OutboxRelayHost({
      nc,
      dataSource,
      env,
      stream: EVENT_STREAMS.accountEvents,
      table: ACCOUNT_OUTBOX_TABLE,
      name: 'AccountEventsRelay',
    });
  }

  onApplicationBootstrap(): void {
    void this.host.startInBackground();
  }

  /** Resolves once the relay runs (tests). */
  ready(): Promise<void> {
    return this.host.startInBackground();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.host.stop();
  }
}
