import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  AccountCreatedEvent,
  AccountDeletedEvent,
  AccountStateEvent,
  AccountUpdatedEvent,
  EVENT_STREAMS,
  SUBJECTS,
} from '@vault/contracts';
import { jetStreamConsumer } from '@vault/platform/events';
import { AccountDirectoryService } from './account-directory.service';

/** Durable consumer of the account directory: every records-service replica shares it. */
export const ACCOUNT_DIRECTORY_DURABLE = 'records-account-directory';

/**
 * Keeps the account directory from user-service's account events (stream
 * ACCOUNT_EVENTS): each event carries the account's whole state and version, so a
 * repeated, late or backfilled event is applied idempotently.
 */
@Controller()
export class AccountEventsHandler {
  constructor(private readonly directory: AccountDirectoryService) {}

  @EventPattern(
    'account.>',
    jetStreamConsumer({
      durable: ACCOUNT_DIRECTORY_DURABLE,
      stream: EVENT_STREAMS.accountEvents.name,
      // one upsert per event: messages a stopped instance held come back after 10 s
      ackWaitMs: 10_000,
      payload: {
        [SUBJECTS.accountCreated]: AccountCreatedEvent,
        [SUBJECTS.accountUpdated]: AccountUpdatedEvent,
        [SUBJECTS.accountDeleted]: AccountDeletedEvent,
      },
    }),
  )
  async apply(@Payload() event: AccountStateEvent): Promise<void> {
    await this.directory.apply({
      tenantId: event.tenantId,
      openId: event.openId,
      accountId: event.accountId,
      username: event.username,
      firstName: event.firstName || null,
      lastName: event.lastName || null,
      active: event.active,
      version: event.version,
    });
  }
}
