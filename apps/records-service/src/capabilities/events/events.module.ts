import { Module } from '@nestjs/common';
import { EventPublisher } from './event-publisher';
import { OutboxEventPublisher } from './outbox.publisher';

@Module({
  providers: [{ provide: EventPublisher, useClass: OutboxEventPublisher }],
  exports: [EventPublisher],
})
export class EventsModule {}
