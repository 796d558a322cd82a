import { createOutboxTable, dropOutboxTable } from '@vault/platform';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ACCOUNT_OUTBOX_TABLE } from '../account-events/account-outbox';

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
