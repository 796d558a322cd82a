import { createOutboxTable, dropOutboxTable } from '@vault/platform/events';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The outbox table of account events, as named when this migration was written. */
const ACCOUNT_OUTBOX_TABLE = 'account_outbox_events';

/**
 * The outbox of account events: written in the transaction of each account change,
 * published to the ACCOUNT_EVENTS stream by the relay.
 */
export class AccountOutbox1763900000100 implements MigrationInterface {
  name = 'AccountOutbox1763900000100';

  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, ACCOUNT_OUTBOX_TABLE);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, ACCOUNT_OUTBOX_TABLE);
  }
}
