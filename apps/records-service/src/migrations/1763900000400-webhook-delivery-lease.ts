import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A delivery being attempted carries its lease apart from its retry time, so a
 * subscription whose receiver answers 2xx again can make its deliveries waiting for a
 * retry due now without touching the ones in flight.
 */
export class WebhookDeliveryLease1763900000400 implements MigrationInterface {
  name = 'WebhookDeliveryLease1763900000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN leased_until`);
  }
}
