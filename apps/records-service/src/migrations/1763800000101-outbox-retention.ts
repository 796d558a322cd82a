import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Index of published outbox rows, for the relay's retention pruning. */
export class OutboxRetention1763800000101 implements MigrationInterface {
  name = 'OutboxRetention1763800000101';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX outbox_events_published_idx ON outbox_events (published_at) WHERE published_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS outbox_events_published_idx`);
  }
}
