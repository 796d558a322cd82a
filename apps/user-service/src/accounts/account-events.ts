import { Inject, Injectable, Logger } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/nats-core';
import {
  AccountCreatedEvent,
  AccountUpdatedEvent,
  AccountUpdatePart,
  SUBJECTS,
} from '@vault/contracts';
import { afterRequestCommit, NATS_CONNECTION } from '@vault/platform';
import { AccountEntity } from './account.entity';

/**
 * Publishes account lifecycle events on core NATS (at most once: nothing
 * depends on them yet; a durable consumer would move them to an outbox).
 */
@Injectable()
export class AccountEvents {
  private readonly logger = new Logger('AccountEvents');

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  created(a: AccountEntity): void {
    const event: AccountCreatedEvent = {
      accountId: a.id,
      tenantId: a.tenantId,
      openId: a.openId,
      username: a.username,
      occurredAt: new Date().toISOString(),
    };
    this.publish(SUBJECTS.accountCreated, event);
  }

  updated(a: AccountEntity, part: AccountUpdatePart): void {
    const event: AccountUpdatedEvent = {
      accountId: a.id,
      tenantId: a.tenantId,
      openId: a.openId,
      part,
      occurredAt: new Date().toISOString(),
    };
    this.publish(SUBJECTS.accountUpdated, event);
  }

  /** Published once the change is committed (an idempotent request commits after its handler). */
  private publish(subject: string, payload: object): void {
    afterRequestCommit(() => {
      try {
        this.nc.publish(subject, JSON.stringify(payload));
      } catch (err) {
        this.logger.warn(`could not publish ${subject}: ${err}`);
      }
    });
  }
}
