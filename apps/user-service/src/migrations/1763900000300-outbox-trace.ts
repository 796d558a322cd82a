import { addOutboxTraceContext, dropOutboxTraceContext } from '@vault/platform/events';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The outbox table of account events, as named when this migration was written. */
const ACCOUNT_OUTBOX_TABLE = 'account_outbox_events';

/**
 * The W3C trace context of the account change that wrote each outbox row (null while
 * tracing is off): the relay sends it on as the traceparent/tracestate headers.
 */
export class AccountOutboxTrace1763900000300 implements MigrationInterface {
  name = 'AccountOutboxTrace1763900000300';

  async up(q: QueryRunner): Promise<void> {
    await addOutboxTraceContext(q, ACCOUNT_OUTBOX_TABLE);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTraceContext(q, ACCOUNT_OUTBOX_TABLE);
  }
}
