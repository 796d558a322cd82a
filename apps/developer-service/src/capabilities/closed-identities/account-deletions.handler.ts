import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { AccountDeletedEvent, EVENT_STREAMS, SUBJECTS } from '@vault/contracts';
import { jetStreamConsumer } from '@vault/platform/events';
import { ClosedIdentitiesService } from './closed-identities.service';

/** Durable consumer of the developer module's closed identities; every replica shares it. */
export const CLOSED_IDENTITIES_DURABLE = 'developer-closed-identities';

/**
 * Closes the identity of every deleted account (account.deleted.v1 from the user
 * module, backfilled ones included): from then on no token is issued to it.
 */
@Controller()
export class AccountDeletionsHandler {
  constructor(private readonly closed: ClosedIdentitiesService) {}

  @EventPattern(
    SUBJECTS.accountDeleted,
    jetStreamConsumer({
      durable: CLOSED_IDENTITIES_DURABLE,
      stream: EVENT_STREAMS.accountEvents.name,
      ackWaitMs: 10_000,
      payload: AccountDeletedEvent,
    }),
  )
  async onAccountDeleted(@Payload() event: AccountDeletedEvent): Promise<void> {
    await this.closed.close({
      tenantId: event.tenantId,
      openId: event.openId,
      accountId: event.accountId,
      closedAt: new Date(event.occurredAt),
    });
  }
}
