import { Module } from '@nestjs/common';
import { AccountEventsRelay } from './account-events.relay';
import { AccountOutbox } from './account-outbox';

/** Account events: the outbox written with each change and its relay to JetStream. */
@Module({
  providers: [AccountOutbox, AccountEventsRelay],
  exports: [AccountOutbox],
})
export class AccountEventsModule {}
