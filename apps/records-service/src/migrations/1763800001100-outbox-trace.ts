import { addOutboxTraceContext, dropOutboxTraceContext } from '@vault/platform/events';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The W3C trace context of the change that wrote each outbox row (null while tracing is
 * off): the relay sends it on as the traceparent/tracestate headers of the event.
 */
export class OutboxTrace1763800001100 implements MigrationInterface {
  name = 'OutboxTrace1763800001100';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceContext(q, 'outbox_events');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceContext(q, 'outbox_events');
  }
}
